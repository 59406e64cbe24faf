"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { User } from "@/lib/schemas/users";
import { inputClass, labelClass } from "@/components/ui/styles";
import { useDebounced } from "@/components/ui/use-debounced";
import { messageOf, useTRPC } from "@/trpc/react";

// A sys_admin looks at another user's keys: find the user (matches listed as typing pauses, like a
// list's search), pick them from the matches.

export function OwnerPicker({ onPick }: { onPick: (user: User) => void }) {
  const trpc = useTRPC();
  const id = useId();
  const [text, setText] = useState("");
  const typed = useDebounced(text.trim());
  const query = text.trim() === "" ? "" : typed;
  const users = useQuery(
    trpc.users.list.queryOptions({ q: query, limit: 20 }, { enabled: query !== "", select: (page) => page.data }),
  );

  return (
    <div>
      <div role="search" aria-label="Another user's keys">
        <label htmlFor={id} className={labelClass}>
          Show another user’s keys
        </label>
        <input
          id={id}
          type="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="Username, name or email"
          autoComplete="off"
          className={`${inputClass} mt-1`}
        />
      </div>
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
