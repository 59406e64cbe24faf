import "server-only";

// Reads a `svc db dump` file statement by statement before anything is written and keeps only the
// data a restore needs (literal rows, sequence positions, partitions): schema statements are checked
// and dropped, anything else is refused with its kind and line, so nothing a dump defines reaches
// the database. Its scanner follows PostgreSQL's lexer wherever a dump could make the two disagree.
// See docs/decisions/050-restore-confinement.md.

export class DumpRefused extends Error {}

type Token =
  | { type: "word"; text: string; upper: string }
  | { type: "number"; text: string }
  | { type: "string"; text: string; escape: boolean }
  | { type: "ident"; text: string }
  | { type: "dollar"; text: string }
  | { type: "punct"; text: string };

interface Statement {
  tokens: Token[];
  line: number;
}

/** The schemas whose rows a dump may hold: the app's and its job queue's. */
export const DATA_SCHEMAS = ["public", "pgboss"];
const EXTENSIONS = new Set(["pg_trgm"]);
const LANGUAGES = new Set(["sql", "plpgsql"]);

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

const PSQL = "The dump holds psql commands: make it with `npm run svc -- db dump`.";

function refuse(kind: string, line: number): never {
  throw new DumpRefused(
    `The dump holds ${kind} at line ${line}, which \`svc db dump\` never writes: nothing was restored.`,
  );
}

/** The dump in statements; psql's lines are refused, but for pg_dump's `\restrict` fence. */
function statements(sql: string): Statement[] {
  const out: Statement[] = [];
  let tokens: Token[] = [];
  let start = 0;
  let line = 1;
  let fence: string | undefined;
  const lineAt = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (sql.charCodeAt(k) === 10) line++;
  };
  let i = 0;
  const push = (token: Token, end: number) => {
    if (tokens.length === 0) start = line;
    tokens.push(token);
    lineAt(i, end);
    i = end;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const prev = i > 0 ? sql[i - 1]! : "\n";
    if (c === "\n" || c === " " || c === "\t" || c === "\r" || c === "\f") {
      lineAt(i, i + 1);
      i++;
    } else if (c === "\\" && prev === "\n") {
      // A line psql alone reads: refused, but for the fence a newer pg_dump puts around its output.
      const end = sql.indexOf("\n", i) < 0 ? sql.length : sql.indexOf("\n", i);
      const text = sql.slice(i, end);
      fence ??= /^\\restrict ([A-Za-z0-9]+)$/.exec(text)?.[1] ?? "";
      if (!fence || (text !== `\\restrict ${fence}` && text !== `\\unrestrict ${fence}`)) throw new DumpRefused(PSQL);
      i = end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
    } else if (c === "/" && sql[i + 1] === "*") {
      let depth = 0;
      let k = i;
      do {
        if (sql.startsWith("/*", k)) {
          depth++;
          k += 2;
        } else if (sql.startsWith("*/", k)) {
          depth--;
          k += 2;
        } else k++;
      } while (depth > 0 && k < sql.length);
      if (depth > 0) refuse("an unterminated comment", line);
      lineAt(i, k);
      i = k;
    } else if (c === "'" || ((c === "E" || c === "e") && sql[i + 1] === "'")) {
      // At a token's start (an identifier ending in E was read whole below) E' opens an escape string.
      const escape = c !== "'";
      let k = escape ? i + 2 : i + 1;
      for (;;) {
        if (k >= sql.length) refuse("an unterminated string", line);
        if (escape && sql[k] === "\\") k += 2;
        else if (sql[k] === "'" && sql[k + 1] === "'") k += 2;
        else if (sql[k] === "'") break;
        else k++;
      }
      push({ type: "string", text: sql.slice(i, k + 1), escape }, k + 1);
    } else if (c === '"') {
      let k = i + 1;
      for (;;) {
        if (k >= sql.length) refuse("an unterminated quoted name", line);
        if (sql[k] === '"' && sql[k + 1] === '"') k += 2;
        else if (sql[k] === '"') break;
        else k++;
      }
      push({ type: "ident", text: sql.slice(i, k + 1) }, k + 1);
    } else if (c === "$") {
      const tag = IDENT_CHAR.test(prev) ? undefined : DOLLAR_TAG.exec(sql.slice(i, i + 200))?.[0];
      if (!tag) refuse("a `$` outside a string", line);
      const end = sql.indexOf(tag, i + tag.length);
      if (end < 0) refuse("an unterminated dollar quote", line);
      push({ type: "dollar", text: sql.slice(i, end + tag.length) }, end + tag.length);
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const text = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(sql.slice(i, i + 200))![0];
      push({ type: "word", text, upper: text.toUpperCase() }, i + text.length);
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      const text = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i, i + 100))![0];
      push({ type: "number", text }, i + text.length);
    } else if (c === ";") {
      if (tokens.length > 0) out.push({ tokens, line: start });
      tokens = [];
      i++;
    } else {
      push({ type: "punct", text: c }, i + 1);
    }
  }
  if (tokens.length > 0) out.push({ tokens, line: start });
  return out;
}

const isWord = (t: Token | undefined, ...words: string[]) => t?.type === "word" && words.includes(t.upper);
const isPunct = (t: Token | undefined, text: string) => t?.type === "punct" && t.text === text;

/** A schema-qualified name at `at`: [schema, name, next index], or undefined. */
function qualified(tokens: Token[], at: number): [string, string, number] | undefined {
  const [a, dot, b] = [tokens[at], tokens[at + 1], tokens[at + 2]];
  const plain = (t: Token | undefined) =>
    t?.type === "word"
      ? t.text.toLowerCase()
      : t?.type === "ident"
        ? t.text.slice(1, -1).replace(/""/g, '"')
        : undefined;
  const schema = plain(a);
  const name = plain(b);
  if (schema === undefined || name === undefined || !isPunct(dot, ".")) return undefined;
  return [schema, name, at + 3];
}

/**
 * Whether tokens[at..] is `( literal, … ) [, ( … )]*` to the statement's end. pg_dump writes
 * DEFAULT for a generated column (the search's text), which the target computes as its migrations
 * define it.
 */
function literalRows(tokens: Token[], at: number): boolean {
  let k = at;
  for (;;) {
    if (!isPunct(tokens[k++], "(")) return false;
    for (;;) {
      if (isPunct(tokens[k], "-") && tokens[k + 1]?.type === "number") k++;
      const t = tokens[k++];
      const literal =
        (t?.type === "string" && !t.escape) || t?.type === "number" || isWord(t, "NULL", "TRUE", "FALSE", "DEFAULT");
      if (!literal) return false;
      if (isPunct(tokens[k], ",")) k++;
      else break;
    }
    if (!isPunct(tokens[k++], ")")) return false;
    if (k === tokens.length) return true;
    if (!isPunct(tokens[k++], ",")) return false;
  }
}

/** A statement as the restore sends it: its tokens, spaced, never the dump's own text. */
function text(tokens: Token[]): string {
  let out = "";
  tokens.forEach((t, k) => {
    const before = tokens[k - 1];
    const tight =
      k === 0 ||
      (t.type === "punct" && ".),".includes(t.text)) ||
      (t.type === "punct" && t.text === "(" && before?.type === "word") ||
      (before?.type === "punct" && ".(".includes(before.text));
    out += (tight ? "" : " ") + t.text;
  });
  return out;
}

interface Partition {
  parent: string;
  child: string;
  /** `DEFAULT`, or `FOR VALUES …` of literals. */
  bound: string;
}

export interface DumpPlan {
  /** Statements to run, in order: set_config(search_path), INSERTs of rows (with their table), setval. */
  data: { sql: string; table?: string }[];
  /** Partitions the rows go into (made by the restore when the migrations have not). */
  partitions: Partition[];
  /** The pg-boss schema version the dump's rows are of, when it holds the job queue. */
  queueVersion?: number;
}

const quoted = (schema: string, name: string) => `"${schema.replace(/"/g, '""')}"."${name.replace(/"/g, '""')}"`;

/** The kind of a statement, for a refusal: its first words. */
function kind(tokens: Token[]): string {
  const words = tokens.filter((t) => t.type === "word").map((t) => (t as { upper: string }).upper);
  const typed = tokens.filter((t) => t.type === "word").map((t) => t.text);
  const first = words[0] ?? tokens[0]?.text ?? "";
  if (first === "COPY")
    return words.includes("PROGRAM") ? "COPY … PROGRAM" : words.includes("TO") ? "COPY … TO" : "COPY";
  if (["CREATE", "ALTER", "DROP", "GRANT", "REVOKE", "SET", "RESET"].includes(first)) {
    const rest = typed
      .slice(1)
      .filter((w) => !["OR", "REPLACE", "UNIQUE", "TRUSTED", "PROCEDURAL"].includes(w.toUpperCase()));
    return `${first} ${rest[0] ?? ""}`.trim();
  }
  return first;
}

/** Reads a dump into what a restore runs; throws DumpRefused for anything `svc db dump` never writes. */
export function planDump(sql: string): DumpPlan {
  const plan: DumpPlan = { data: [], partitions: [] };
  for (const { tokens, line } of statements(sql)) {
    const [t0, t1, t2] = tokens;
    const head = kind(tokens);
    if (isWord(t0, "SET") && t1?.type === "word" && isPunct(t2, "=") && !isWord(t1, "ROLE", "SESSION")) {
      // pg_dump's session settings: the restore's own session has what it needs.
      continue;
    }
    if (isWord(t0, "SELECT")) {
      const call = text(tokens);
      if (
        /^SELECT pg_catalog\.setval\('[^']*(?:''[^']*)*', \d+, (?:true|false)\)$/.test(call) ||
        /^SELECT pg_catalog\.set_config\('search_path', '[^']*(?:''[^']*)*', false\)$/.test(call)
      ) {
        plan.data.push({ sql: call });
        continue;
      }
      refuse("a SELECT other than setval or set_config", line);
    }
    if (isWord(t0, "INSERT") && isWord(t1, "INTO")) {
      const name = qualified(tokens, 2);
      if (!name || !DATA_SCHEMAS.includes(name[0])) refuse("an INSERT outside the app's schemas", line);
      let k = name[2];
      if (isPunct(tokens[k], "(")) {
        k++;
        while (tokens[k]?.type === "word" || tokens[k]?.type === "ident") k += isPunct(tokens[k + 1], ",") ? 2 : 1;
        if (!isPunct(tokens[k++], ")")) refuse("an INSERT of a form pg_dump does not write", line);
      }
      if (isWord(tokens[k], "OVERRIDING")) {
        if (!isWord(tokens[k + 1], "SYSTEM") || !isWord(tokens[k + 2], "VALUE")) refuse("INSERT … OVERRIDING", line);
        k += 3;
      }
      if (!isWord(tokens[k], "VALUES") || !literalRows(tokens, k + 1))
        refuse("an INSERT of anything but literal values", line);
      const [schema, table] = name;
      if (schema === "public" && table === "_prisma_migrations") continue; // the restore's migrations record these
      if (schema === "pgboss" && table === "version") {
        const version = tokens[k + 2];
        if (version?.type !== "number") refuse("a pg-boss version row of a form pg-boss does not write", line);
        plan.queueVersion = Number(version.text);
      }
      plan.data.push({ sql: text(tokens), table: `${schema}.${table}` });
      continue;
    }
    if (isWord(t0, "ALTER") && isWord(t1, "TABLE") && tokens.some((t) => isWord(t, "ATTACH"))) {
      const only = isWord(t2, "ONLY") ? 3 : 2;
      const parent = qualified(tokens, only);
      const child = parent && isWord(tokens[parent[2]], "ATTACH") ? qualified(tokens, parent[2] + 2) : undefined;
      if (!parent || !child || parent[0] !== child[0] || !DATA_SCHEMAS.includes(parent[0]))
        refuse("ALTER TABLE … ATTACH PARTITION of a form pg_dump does not write", line);
      const bound = tokens.slice(child[2]);
      const literalBound =
        (bound.length === 1 && isWord(bound[0], "DEFAULT")) ||
        (isWord(bound[0], "FOR") &&
          isWord(bound[1], "VALUES") &&
          bound
            .slice(2)
            .every(
              (t) =>
                (t.type === "string" && !t.escape) ||
                isWord(t, "FROM", "TO", "IN", "MINVALUE", "MAXVALUE") ||
                (t.type === "punct" && "(),".includes(t.text)) ||
                t.type === "number",
            ));
      if (!literalBound) refuse("a partition bound of anything but literals", line);
      plan.partitions.push({
        parent: quoted(parent[0], parent[1]),
        child: quoted(child[0], child[1]),
        bound: text(bound),
      });
      continue;
    }
    // The schema's statements, checked for their kind and not run.
    if (isWord(t0, "CREATE")) {
      const words = tokens.filter((t) => t.type === "word").map((t) => (t as { upper: string }).upper);
      const what = words[1] === "UNIQUE" ? words[2] : words[1];
      if (what === "EXTENSION") {
        const name = tokens.find((t, k) => k > 1 && t.type === "word" && !["IF", "NOT", "EXISTS"].includes(t.upper));
        if (!name || !EXTENSIONS.has(name.text.toLowerCase()))
          refuse(`CREATE EXTENSION ${name?.text ?? ""}`.trim(), line);
        continue;
      }
      if (what === "FUNCTION") {
        const at = tokens.findIndex((t) => isWord(t, "LANGUAGE"));
        const language = tokens[at + 1];
        const name = language?.type === "word" ? language.text.toLowerCase() : language?.text.replace(/^'|'$/g, "");
        if (at < 0 || !name || !LANGUAGES.has(name)) refuse(`CREATE FUNCTION … LANGUAGE ${name ?? "(none)"}`, line);
        continue;
      }
      if (["TABLE", "INDEX", "SEQUENCE", "SCHEMA", "TYPE", "TRIGGER", "VIEW"].includes(what ?? "")) continue;
      refuse(head, line);
    }
    if (isWord(t0, "ALTER") && isWord(t1, "TABLE", "SEQUENCE", "INDEX")) {
      if (tokens.some((t) => isWord(t, "OWNER"))) refuse(`${head} … OWNER TO`, line);
      continue;
    }
    if (isWord(t0, "COMMENT") && isWord(t1, "ON")) continue;
    if (isWord(t0, "COPY") && /FROM stdin$/i.test(text(tokens))) throw new DumpRefused(PSQL);
    refuse(head || "a statement", line);
  }
  return plan;
}
