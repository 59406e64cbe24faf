"use client";

import { useId, useState, type FormEvent } from "react";
import { inputClass, labelClass, secondaryButton } from "./styles";

/** A search of a list, run on Enter or its button; a blank search is none. */
export function SearchBox({
  name,
  label = "Search",
  button = "Search",
  placeholder = "Username, name or email",
  onSearch,
  className = "",
}: {
  /** The search landmark's name. */
  name: string;
  label?: string;
  button?: string;
  placeholder?: string;
  onSearch: (query: string | undefined) => void;
  className?: string;
}) {
  const id = useId();
  const [text, setText] = useState("");
  function search(event: FormEvent) {
    event.preventDefault();
    onSearch(text.trim() || undefined);
  }
  return (
    <form
      role="search"
      aria-label={name}
      onSubmit={search}
      className={`flex w-full max-w-md items-end gap-2 ${className}`}
    >
      <div className="min-w-0 flex-1">
        <label htmlFor={id} className={labelClass}>
          {label}
        </label>
        <input
          id={id}
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={placeholder}
          className={`${inputClass} mt-1`}
        />
      </div>
      <button type="submit" className={secondaryButton}>
        {button}
      </button>
    </form>
  );
}
