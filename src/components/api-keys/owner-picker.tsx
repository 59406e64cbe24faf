"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import type { User } from "@/lib/schemas/users";
import { inputClass, labelClass, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";

// A sys_admin looks at another user's keys: find the user, pick them from the matches.

export function OwnerPicker({ onPick }: { onPick: (user: User) => void }) {
  const trpc = useTRPC();
  const id = useId();
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const users = useQuery(
    trpc.users.list.queryOptions({ q: query, limit: 20 }, { enabled: query !== "", select: (page) => page.data }),
  );

  function search(event: FormEvent) {
    event.preventDefault();
    setQuery(text.trim());
  }

  return (
    <div>
      <form role="search" aria-label="Another user's keys" onSubmit={search} className="flex items-end gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor={id} className={labelClass}>
            Show another user’s keys
          </label>
          <input
            id={id}
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            placeholder="Username, name or email"
            className={`${inputClass} mt-1`}
          />
        </div>
        <button type="submit" className={secondaryButton}>
          Find user
        </button>
      </form>
      {query !== "" && (
        <div className="mt-2 text-sm" aria-live="polite">
          {users.isPending && <p className="text-slate-600 dark:text-slate-300">Searching…</p>}
          {users.isError && <p className="text-red-700 dark:text-red-400">{messageOf(users.error)}</p>}
          {users.data?.length === 0 && <p className="text-slate-600 dark:text-slate-300">No user matches “{query}”.</p>}
          {users.data && users.data.length > 0 && (
            <ul
              aria-label="Matching users"
              className="divide-y divide-slate-200 rounded-md border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900"
            >
              {users.data.map((user) => (
                <li key={user.id}>
                  <button
                    type="button"
                    onClick={() => onPick(user)}
                    className="w-full px-3 py-2 text-left hover:bg-slate-50 dark:hover:bg-slate-800"
                    aria-label={`Show the keys of ${user.username}`}
                  >
                    <span className="font-medium">{user.username}</span>
                    {user.display_name && user.display_name !== user.username && (
                      <span className="text-slate-500 dark:text-slate-400"> — {user.display_name}</span>
                    )}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
