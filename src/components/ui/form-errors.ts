// How a field's errors read, for the form kit (./form.tsx) and its controls (./fields.tsx). Kept apart
// from the kit so that a control used outside a schema form (a search box) does not bring the
// schema validation library with its page.

/** "must not be empty" on Name reads "Name must not be empty."; a whole sentence stays one. */
export function sentence(subject: string, message: string, nested = false): string {
  let full: string;
  if (/^(must|is|are|cannot|should|may|says|does|has) /.test(message)) full = `${subject} ${message}`;
  else if (!subject || (/^[A-Z]/.test(message) && !nested)) full = message;
  else full = `${subject}: ${message}`;
  return full.endsWith(".") ? full : `${full}.`;
}

/** Names a place below a field (`redirect_uris.1` → "Redirect URI 2"). */
export type PlaceLabeller = (rest: string[]) => string;

const NOT_ERRORS = new Set(["message", "type", "types"]);

/** Every error at and below a field, as sentences that name where they are. */
export function errorText(error: unknown, subject: string, labelFor?: PlaceLabeller): string | undefined {
  const lines: string[] = [];
  const walk = (node: unknown, rest: string[]) => {
    if (!node || typeof node !== "object") return;
    const { message } = node as { message?: unknown };
    if (typeof message === "string" && message !== "") {
      const place = rest.length === 0 ? subject : (labelFor?.(rest) ?? `${subject} (${rest.join(".")})`);
      lines.push(sentence(place, message, rest.length > 0));
    }
    for (const [key, child] of Object.entries(node)) {
      // An error's own members; a place below a field may be called "type" too, but holds an error.
      if (key === "ref" || (NOT_ERRORS.has(key) && (typeof child !== "object" || child === null))) continue;
      walk(child, key === "root" ? rest : [...rest, key]);
    }
  };
  walk(error, []);
  return lines.length > 0 ? [...new Set(lines)].join(" ") : undefined;
}
