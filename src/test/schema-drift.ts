import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { get_dmmf } from "@prisma/prisma-schema-wasm";

// Compares prisma/schema.prisma with a database built by the migrations, standing in for `prisma
// migrate diff`, whose native engine cannot be downloaded here. Both sides are written in
// PostgreSQL's own spelling, one readable line per mismatch; what schema.prisma cannot express
// (generated columns, partial indexes, CHECKs, triggers, partitions, views) passes only when an
// allow-list names it.
// See docs/decisions/007-own-migration-runner.md.

const SCHEMA_PATH = path.resolve(process.cwd(), "prisma/schema.prisma");

/** Tables the checker never looks at: Prisma's own bookkeeping. */
const IGNORED_TABLES = ["_prisma_migrations"];

const IDENTIFIER_MAX = 63; // PostgreSQL's NAMEDATALEN - 1, what Prisma's default names are cut to

interface Column {
  name: string;
  /** format_type() spelling: "character varying(35)", "timestamp(6) with time zone", "integer". */
  type: string;
  nullable: boolean;
  /** Canonical default: autoincrement(), now(), dbgenerated(<sql>), "text", true, 5; null if none. */
  default: string | null;
  /** schema side only: the declaration in Prisma terms, for messages ("String? @db.VarChar(35)"). */
  declared?: string;
  /** schema side only: the field has @updatedAt. */
  updatedAt?: boolean;
}

interface Index {
  name: string;
  unique: boolean;
  /** Key columns in order, "col" or "col DESC". */
  columns: string[];
  /** Access method: btree, hash, gin, ... */
  method: string;
}

type ReferentialAction = "Cascade" | "Restrict" | "NoAction" | "SetNull" | "SetDefault";

interface ForeignKey {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
  /** database side only: anything Prisma cannot declare (DEFERRABLE, MATCH FULL), or "". */
  unsupported?: string;
}

interface Table {
  name: string;
  /** schema side only: the Prisma model the table comes from. */
  model?: string;
  columns: Column[];
  primaryKey: { name: string; columns: string[] } | null;
  indexes: Index[];
  foreignKeys: ForeignKey[];
}

interface EnumType {
  name: string;
  values: string[];
}

type ExtraKind = "column" | "index" | "constraint" | "trigger" | "partitioning" | "partition" | "view";

/** A database object schema.prisma cannot express. `definition` has no schema qualification. */
interface ExtraObject {
  kind: ExtraKind;
  table: string;
  name: string;
  definition: string;
}

export interface DataModel {
  tables: Table[];
  enums: EnumType[];
  extras: ExtraObject[];
}

/** An allow-list entry: extras matching it are accepted; an entry matching nothing is reported. */
export interface AllowedObject {
  kind: ExtraKind;
  table: string | RegExp;
  name: string | RegExp;
  definition: string | RegExp;
  /** Why the object exists outside schema.prisma (documentation for the reader). */
  reason: string;
}

// ---------------------------------------------------------------------------------------------
// schema.prisma side

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum" | "unsupported";
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt?: boolean;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: ReferentialAction;
  relationOnUpdate?: ReferentialAction;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
}

interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  dbName?: string | null;
  algorithm?: string;
  fields: ({ name: string; sortOrder?: "asc" | "desc" } & Record<string, unknown>)[];
}

interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: { name: string; dbName?: string | null }[];
}

interface Dmmf {
  models: DmmfModel[];
  enums: DmmfEnum[];
  indexes: DmmfIndex[];
}

/** Prisma's parsed data model (DMMF) of a schema text; throws Prisma's validation errors. */
function parseSchema(schemaText: string): Dmmf {
  let out: string;
  try {
    out = get_dmmf(JSON.stringify({ prismaSchema: schemaText }));
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // not JSON: keep the text as is
    }
    throw new Error(`schema.prisma does not validate:\n${message.replace(/\u001b\[[0-9;]*m/g, "")}`);
  }
  return (JSON.parse(out) as { datamodel: Dmmf }).datamodel;
}

/** What Prisma's migrations would create for schema.prisma (default: prisma/schema.prisma). */
export function schemaModel(schemaText = readFileSync(SCHEMA_PATH, "utf8")): DataModel {
  return modelFromDmmf(parseSchema(schemaText));
}

const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => "text",
  Char: (a) => withArgs("character", a),
  VarChar: (a) => withArgs("character varying", a),
  Bit: (a) => withArgs("bit", a),
  VarBit: (a) => withArgs("bit varying", a),
  Uuid: () => "uuid",
  Xml: () => "xml",
  Inet: () => "inet",
  Citext: () => "citext",
  Boolean: () => "boolean",
  SmallInt: () => "smallint",
  Integer: () => "integer",
  BigInt: () => "bigint",
  Oid: () => "oid",
  Real: () => "real",
  DoublePrecision: () => "double precision",
  Decimal: (a) => withArgs("numeric", a),
  Money: () => "money",
  Date: () => "date",
  Timestamp: (a) => `${withArgs("timestamp", a)} without time zone`,
  Timestamptz: (a) => `${withArgs("timestamp", a)} with time zone`,
  Time: (a) => `${withArgs("time", a)} without time zone`,
  Timetz: (a) => `${withArgs("time", a)} with time zone`,
  Json: () => "json",
  JsonB: () => "jsonb",
  ByteA: () => "bytea",
};

/** The column type Prisma uses for a scalar type without @db.* attribute. */
const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Boolean: "boolean",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
};

const ACTIONS: Record<string, ReferentialAction> = {
  a: "NoAction",
  r: "Restrict",
  c: "Cascade",
  n: "SetNull",
  d: "SetDefault",
};

function withArgs(name: string, args: string[]): string {
  return args.length ? `${name}(${args.join(",")})` : name;
}

export function primaryKeyName(table: string): string {
  return `${table.length >= IDENTIFIER_MAX - 5 ? table.slice(0, IDENTIFIER_MAX - 5) : table}_pkey`;
}

/** Prisma's default name of an index (suffix _key or _idx) or foreign key (suffix _fkey). */
export function defaultName(table: string, columns: string[], suffix: "_key" | "_idx" | "_fkey"): string {
  const joined = `${table}_${columns.join("_")}`;
  const limit = IDENTIFIER_MAX - (suffix === "_fkey" ? 5 : suffix.length);
  return `${joined.length >= limit ? joined.slice(0, limit) : joined}${suffix}`;
}

function modelFromDmmf(dmmf: Dmmf): DataModel {
  const models = new Map(dmmf.models.map((m) => [m.name, m]));
  const enums = new Map(dmmf.enums.map((e) => [e.name, e]));
  const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
  const columnOf = (m: DmmfModel, fieldName: string) => {
    const field = m.fields.find((f) => f.name === fieldName);
    if (!field) throw new Error(`model ${m.name} has no field ${fieldName}`);
    return field.dbName ?? field.name;
  };

  const tables = dmmf.models.map((model): Table => {
    if (model.schema) throw new Error(`model ${model.name}: multiSchema is not supported by the drift check`);
    const table = tableOf(model);
    const columns = model.fields
      .filter((f) => f.kind === "scalar" || f.kind === "enum")
      .map((f): Column => {
        const enumType = f.kind === "enum" ? enums.get(f.type) : undefined;
        return {
          name: f.dbName ?? f.name,
          type: columnType(model, f, enumType) + (f.isList ? "[]" : ""),
          nullable: !f.isRequired && !f.isList,
          default: schemaDefault(model, f, enumType),
          declared: declaration(f),
          updatedAt: f.isUpdatedAt === true,
        };
      });
    const unsupported = model.fields.find((f) => f.kind === "unsupported");
    if (unsupported)
      throw new Error(`model ${model.name}: Unsupported field ${unsupported.name} is not supported by the drift check`);

    let primaryKey: Table["primaryKey"] = null;
    const indexes: Index[] = [];
    for (const index of dmmf.indexes.filter((i) => i.model === model.name)) {
      const columnsOf = index.fields.map((f) => {
        const extra = Object.keys(f).filter((k) => k !== "name" && k !== "sortOrder");
        if (extra.length)
          throw new Error(`model ${model.name}: index option ${extra.join(", ")} is not supported by the drift check`);
        return columnOf(model, f.name) + (f.sortOrder === "desc" ? " DESC" : "");
      });
      if (index.type === "id") {
        primaryKey = { name: index.dbName ?? primaryKeyName(table), columns: columnsOf };
      } else if (index.type === "unique" || index.type === "normal") {
        const unique = index.type === "unique";
        const plain = index.fields.map((f) => columnOf(model, f.name));
        indexes.push({
          name: index.dbName ?? defaultName(table, plain, unique ? "_key" : "_idx"),
          unique,
          columns: columnsOf,
          method: (index.algorithm ?? "BTree").toLowerCase(),
        });
      } else {
        throw new Error(`model ${model.name}: ${index.type} indexes are not supported on PostgreSQL`);
      }
    }

    const foreignKeys = model.fields
      .filter((f) => f.kind === "object" && f.relationFromFields && f.relationFromFields.length > 0)
      .map((f): ForeignKey => {
        const target = models.get(f.type);
        if (!target) throw new Error(`model ${model.name}: relation ${f.name} to unknown model ${f.type}`);
        const columnsOf = (f.relationFromFields ?? []).map((name) => columnOf(model, name));
        // Prisma's defaults: SetNull for an optional relation, Restrict for a required one; Cascade on update.
        // (The DMMF does not carry @relation(map: ...): foreign keys are expected under Prisma's default name.)
        return {
          name: defaultName(table, columnsOf, "_fkey"),
          columns: columnsOf,
          refTable: tableOf(target),
          refColumns: (f.relationToFields ?? []).map((name) => columnOf(target, name)),
          onDelete: f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull"),
          onUpdate: f.relationOnUpdate ?? "Cascade",
        };
      });

    return { name: table, model: model.name, columns, primaryKey, indexes, foreignKeys };
  });

  return {
    tables,
    enums: dmmf.enums.map((e) => ({ name: e.dbName ?? e.name, values: e.values.map((v) => v.dbName ?? v.name) })),
    extras: [],
  };
}

function columnType(model: DmmfModel, field: DmmfField, enumType: DmmfEnum | undefined): string {
  if (enumType) return enumType.dbName ?? enumType.name;
  if (field.nativeType) {
    const [name, args] = field.nativeType;
    const render = NATIVE_TYPES[name];
    if (!render)
      throw new Error(`${model.name}.${field.name}: native type @db.${name} is not supported by the drift check`);
    return render(args);
  }
  const type = SCALAR_TYPES[field.type];
  if (!type) throw new Error(`${model.name}.${field.name}: type ${field.type} is not supported by the drift check`);
  return type;
}

function declaration(field: DmmfField): string {
  const native = field.nativeType
    ? ` @db.${field.nativeType[0]}${field.nativeType[1].length ? `(${field.nativeType[1].join(", ")})` : ""}`
    : "";
  return `${field.type}${field.isList ? "[]" : field.isRequired ? "" : "?"}${native}`;
}

function isJson(type: string): boolean {
  return type === "json" || type === "jsonb";
}

/** A string literal default in canonical form; JSON values are compared by value. */
function literal(value: string, type: string): string {
  if (isJson(type)) {
    try {
      return JSON.stringify(JSON.stringify(JSON.parse(value)));
    } catch {
      // not valid JSON: compare the text
    }
  }
  return JSON.stringify(value);
}

function schemaDefault(model: DmmfModel, field: DmmfField, enumType: DmmfEnum | undefined): string | null {
  const value = field.default;
  if (value === undefined || value === null) return null;
  const type = columnType(model, field, enumType);
  if (typeof value === "object" && !Array.isArray(value)) {
    const fn = value as { name: string; args: unknown[] };
    switch (fn.name) {
      case "autoincrement":
        return "autoincrement()";
      case "now":
        return "now()";
      case "dbgenerated":
        // A literal cast (`'{}'::uuid[]`) compares as the literal, as the database prints it.
        return databaseDefault(String(fn.args[0] ?? ""), type);
      case "uuid":
      case "cuid":
      case "nanoid":
      case "ulid":
        return null; // generated by Prisma Client, nothing in the database
      default:
        throw new Error(`${model.name}.${field.name}: @default(${fn.name}()) is not supported by the drift check`);
    }
  }
  if (Array.isArray(value))
    throw new Error(`${model.name}.${field.name}: list defaults are not supported by the drift check`);
  if (enumType) {
    const v = enumType.values.find((e) => e.name === value);
    return JSON.stringify(v?.dbName ?? v?.name ?? String(value));
  }
  if (typeof value === "string") return literal(value, type);
  return String(value); // boolean, number
}

// ---------------------------------------------------------------------------------------------
// database side

const NUMERIC_TYPES = /^(smallint|integer|bigint|real|double precision|numeric|money)\b/;

/** Canonical form of a column default as pg_get_expr() prints it. */
export function databaseDefault(expr: string | null, type: string): string | null {
  if (expr === null) return null;
  if (/^nextval\('[^']+'::regclass\)$/.test(expr)) return "autoincrement()";
  if (expr === "CURRENT_TIMESTAMP" || expr === "now()") return "now()";
  if (expr === "true" || expr === "false") return expr;
  const unwrapped = expr.replace(/^\((.*)\)$/, "$1");
  if (/^-?\d+(\.\d+)?$/.test(unwrapped)) return unwrapped;
  const cast = /^'((?:[^']|'')*)'::(.+)$/.exec(expr);
  if (cast) {
    const text = cast[1]!.replace(/''/g, "'");
    if (NUMERIC_TYPES.test(cast[2]!) && /^-?\d+(\.\d+)?$/.test(text)) return text;
    return literal(text, type);
  }
  return `dbgenerated(${expr})`;
}

interface RelationRow {
  name: string;
  kind: string;
  partition_of: string | null;
  bound: string | null;
  partition_key: string | null;
}
interface ColumnRow {
  table: string;
  name: string;
  type: string;
  not_null: boolean;
  default: string | null;
  identity: string;
  generated: string;
}
interface IndexRow {
  table: string;
  name: string;
  quoted_name: string;
  quoted_table: string;
  table_kind: string;
  unique: boolean;
  method: string;
  key_count: number;
  columns: (string | null)[];
  options: number[];
  definition: string;
  constraint_type: string | null;
}
interface ConstraintRow {
  table: string;
  name: string;
  type: string;
  columns: string[];
  ref_table: string | null;
  ref_columns: string[] | null;
  on_delete: string;
  on_update: string;
  match_type: string;
  deferrable: boolean;
  definition: string;
}
interface TriggerRow {
  table: string;
  name: string;
  definition: string;
}
interface EnumRow {
  name: string;
  values: string[];
}

const SQL_RELATIONS = `
SELECT c.relname AS name, c.relkind AS kind, parent.relname AS partition_of,
       pg_get_expr(c.relpartbound, c.oid) AS bound,
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partition_key
FROM pg_class c
LEFT JOIN pg_inherits i ON c.relispartition AND i.inhrelid = c.oid
LEFT JOIN pg_class parent ON parent.oid = i.inhparent
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
ORDER BY c.relname`;

// Only the tables themselves (not their partitions), in all the queries below.
const OWN_TABLES = `t.relnamespace = current_schema()::regnamespace AND t.relkind IN ('r', 'p') AND NOT t.relispartition`;

const SQL_COLUMNS = `
SELECT t.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
       a.attidentity AS identity, a.attgenerated AS generated
FROM pg_attribute a
JOIN pg_class t ON t.oid = a.attrelid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE ${OWN_TABLES} AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY t.relname, a.attnum`;

const SQL_INDEXES = `
SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, am.amname AS method,
       quote_ident(i.relname) AS quoted_name, quote_ident(t.relname) AS quoted_table, t.relkind AS table_kind,
       x.indnkeyatts AS key_count,
       ARRAY(SELECT quote_ident(a.attname) FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
             LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
       x.indoption::int2[] AS options,
       pg_get_indexdef(x.indexrelid) AS definition,
       con.contype AS constraint_type
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_am am ON am.oid = i.relam
LEFT JOIN pg_constraint con ON con.conindid = x.indexrelid AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u', 'x')
WHERE ${OWN_TABLES}
ORDER BY t.relname, i.relname`;

const SQL_CONSTRAINTS = `
SELECT t.relname AS table, con.conname AS name, con.contype AS type,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
       r.relname AS ref_table,
       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns,
       con.confdeltype AS on_delete, con.confupdtype AS on_update, con.confmatchtype AS match_type,
       con.condeferrable AS deferrable, pg_get_constraintdef(con.oid) AS definition
FROM pg_constraint con
JOIN pg_class t ON t.oid = con.conrelid
LEFT JOIN pg_class r ON r.oid = con.confrelid
WHERE ${OWN_TABLES} AND con.conparentid = 0 AND con.contype NOT IN ('u', 'n')
ORDER BY t.relname, con.conname`;

const SQL_TRIGGERS = `
SELECT t.relname AS table, tg.tgname AS name, pg_get_triggerdef(tg.oid) AS definition
FROM pg_trigger tg
JOIN pg_class t ON t.oid = tg.tgrelid
WHERE ${OWN_TABLES} AND NOT tg.tgisinternal AND tg.tgparentid = 0
ORDER BY t.relname, tg.tgname`;

const SQL_ENUMS = `
SELECT ty.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
FROM pg_type ty JOIN pg_enum e ON e.enumtypid = ty.oid
WHERE ty.typnamespace = current_schema()::regnamespace
GROUP BY ty.typname
ORDER BY ty.typname`;

/** The tables, enums and other objects of the current schema of the database at `url`. */
export async function databaseModel(url: string): Promise<DataModel> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async <T extends pg.QueryResultRow>(sql: string) => (await client.query<T>(sql)).rows;
    await client.query("SET TimeZone = 'UTC'"); // partition bounds print in the session's time zone
    const schema = (await query<{ schema: string }>("SELECT quote_ident(current_schema()) AS schema"))[0]!.schema;
    return buildDatabaseModel(schema, {
      relations: await query<RelationRow>(SQL_RELATIONS),
      columns: await query<ColumnRow>(SQL_COLUMNS),
      indexes: await query<IndexRow>(SQL_INDEXES),
      constraints: await query<ConstraintRow>(SQL_CONSTRAINTS),
      triggers: await query<TriggerRow>(SQL_TRIGGERS),
      enums: await query<EnumRow>(SQL_ENUMS),
    });
  } finally {
    await client.end();
  }
}

function buildDatabaseModel(
  schema: string,
  rows: {
    relations: RelationRow[];
    columns: ColumnRow[];
    indexes: IndexRow[];
    constraints: ConstraintRow[];
    triggers: TriggerRow[];
    enums: EnumRow[];
  },
): DataModel {
  const unqualify = (definition: string) =>
    definition.split(` ON ${schema}.`).join(" ON ").split(` ON ONLY ${schema}.`).join(" ON ONLY ");
  const extras: ExtraObject[] = [];
  const tables = new Map<string, Table>();
  const enumNames = new Set(rows.enums.map((e) => e.name));

  for (const r of rows.relations) {
    if (IGNORED_TABLES.includes(r.name) || IGNORED_TABLES.includes(r.partition_of ?? "")) continue;
    if (r.partition_of !== null) {
      extras.push({ kind: "partition", table: r.partition_of, name: r.name, definition: r.bound ?? "" });
    } else if (r.kind === "r" || r.kind === "p") {
      tables.set(r.name, { name: r.name, columns: [], primaryKey: null, indexes: [], foreignKeys: [] });
      if (r.kind === "p")
        extras.push({ kind: "partitioning", table: r.name, name: r.name, definition: r.partition_key ?? "" });
    } else {
      const what = { v: "VIEW", m: "MATERIALIZED VIEW", f: "FOREIGN TABLE" }[r.kind] ?? r.kind;
      extras.push({ kind: "view", table: r.name, name: r.name, definition: what });
    }
  }

  for (const c of rows.columns) {
    const table = tables.get(c.table);
    if (!table) continue;
    // format_type() quotes a type name that needs it ("Status"); the schema side names it bare.
    const type = enumNames.has(c.type.replace(/"/g, "").replace(/\[\]$/, "")) ? c.type.replace(/"/g, "") : c.type;
    // Prisma cannot declare a generated column, and its client never writes one: it is an extra,
    // its type and expression what the allow-list names.
    if (c.generated) {
      const definition = `${type}${c.not_null ? " NOT NULL" : ""} GENERATED ALWAYS AS ${c.default ?? ""} STORED`;
      extras.push({ kind: "column", table: c.table, name: c.name, definition });
      continue;
    }
    let defaultValue = databaseDefault(c.default, type);
    if (c.identity) defaultValue = `identity (GENERATED ${c.identity === "a" ? "ALWAYS" : "BY DEFAULT"})`;
    table.columns.push({ name: c.name, type, nullable: !c.not_null, default: defaultValue });
  }

  for (const x of rows.indexes) {
    const table = tables.get(x.table);
    if (!table || x.constraint_type === "p" || x.constraint_type === "x") continue; // listed as constraints
    const definition = unqualify(x.definition);
    const keyColumns = x.columns.slice(0, x.key_count);
    // Prisma can declare an index only as a plain list of columns, each ascending or descending: the
    // index is compared with schema.prisma when pg_get_indexdef() prints exactly that, and is an
    // extra otherwise (expressions, WHERE, INCLUDE, collations, operator classes, NULLS ...).
    const plain = keyColumns.every((c) => c !== null) && x.columns.length === x.key_count;
    const columns = keyColumns.map((c, i) => `${c ?? "?"}${(x.options[i] ?? 0) & 1 ? " DESC" : ""}`);
    const on = x.table_kind === "p" ? "ON ONLY" : "ON"; // an index of a partitioned table
    const expected = `${x.unique ? "CREATE UNIQUE INDEX" : "CREATE INDEX"} ${x.quoted_name} ${on} ${x.quoted_table} USING ${x.method} (${columns.join(", ")})`;
    if (plain && definition === expected) {
      table.indexes.push({ name: x.name, unique: x.unique, columns: columns.map(unquote), method: x.method });
    } else {
      extras.push({ kind: "index", table: x.table, name: x.name, definition });
    }
  }

  for (const c of rows.constraints) {
    const table = tables.get(c.table);
    if (!table) continue;
    if (c.type === "p") {
      table.primaryKey = { name: c.name, columns: c.columns };
    } else if (c.type === "f" && c.ref_table !== null) {
      const unsupported = [c.deferrable ? "DEFERRABLE" : "", c.match_type === "f" ? "MATCH FULL" : ""]
        .filter(Boolean)
        .join(" ");
      table.foreignKeys.push({
        name: c.name,
        columns: c.columns,
        refTable: c.ref_table,
        refColumns: c.ref_columns ?? [],
        onDelete: ACTIONS[c.on_delete] ?? "NoAction",
        onUpdate: ACTIONS[c.on_update] ?? "NoAction",
        unsupported,
      });
    } else {
      extras.push({ kind: "constraint", table: c.table, name: c.name, definition: c.definition });
    }
  }

  for (const t of rows.triggers) {
    if (!tables.has(t.table)) continue;
    extras.push({ kind: "trigger", table: t.table, name: t.name, definition: unqualify(t.definition) });
  }

  return { tables: [...tables.values()], enums: rows.enums.map((e) => ({ name: e.name, values: e.values })), extras };
}

function unquote(column: string): string {
  const m = /^"((?:[^"]|"")*)"(.*)$/.exec(column);
  return m ? m[1]!.replace(/""/g, '"') + m[2]! : column;
}

// ---------------------------------------------------------------------------------------------
// comparison

const list = (columns: string[]) => `(${columns.join(", ")})`;
const showDefault = (d: string | null) => d ?? "none";

function matches(pattern: string | RegExp, value: string): boolean {
  return typeof pattern === "string" ? pattern === value : pattern.test(value);
}

/**
 * Every difference between what schema.prisma declares (`schema`) and what the database holds
 * (`database`), one readable line each; empty when they agree. Database objects schema.prisma cannot
 * express pass only if an entry of `allowed` matches them; entries that match nothing are reported.
 */
export function diff(schema: DataModel, database: DataModel, allowed: AllowedObject[] = []): string[] {
  const problems: string[] = [];
  const dbTables = new Map(database.tables.map((t) => [t.name, t]));
  const schemaTables = new Map(schema.tables.map((t) => [t.name, t]));

  for (const want of schema.tables) {
    const have = dbTables.get(want.name);
    const label = want.model ? `${want.name} (model ${want.model})` : want.name;
    if (!have) {
      problems.push(`table ${label}: missing from the database`);
      continue;
    }
    problems.push(...diffTable(want, have));
  }
  for (const have of database.tables) {
    if (!schemaTables.has(have.name))
      problems.push(`table ${have.name}: in the database but no model of schema.prisma maps to it`);
  }

  const dbEnums = new Map(database.enums.map((e) => [e.name, e]));
  for (const want of schema.enums) {
    const have = dbEnums.get(want.name);
    if (!have) problems.push(`enum ${want.name}: missing from the database`);
    else if (want.values.join(",") !== have.values.join(",")) {
      problems.push(
        `enum ${want.name}: values (${want.values.join(", ")}) in schema.prisma, (${have.values.join(", ")}) in the database`,
      );
    }
  }
  for (const have of database.enums) {
    if (!schema.enums.some((e) => e.name === have.name))
      problems.push(`enum ${have.name}: in the database but not in schema.prisma`);
  }

  const used = new Set<AllowedObject>();
  for (const extra of database.extras) {
    const entry = allowed.find(
      (a) =>
        a.kind === extra.kind &&
        matches(a.table, extra.table) &&
        matches(a.name, extra.name) &&
        matches(a.definition, extra.definition),
    );
    if (entry) used.add(entry);
    else
      problems.push(
        `${extra.table}: ${extra.kind} ${extra.name} is not expressible in schema.prisma and not in the allow-list: ${extra.definition}`,
      );
  }
  for (const entry of allowed) {
    if (!used.has(entry))
      problems.push(
        `allow-list entry ${entry.kind} ${String(entry.table)}.${String(entry.name)} matches nothing in the database: ${String(entry.definition)}`,
      );
  }
  return problems;
}

function diffTable(want: Table, have: Table): string[] {
  const problems: string[] = [];
  const t = want.name;
  const dbColumns = new Map(have.columns.map((c) => [c.name, c]));
  for (const w of want.columns) {
    const h = dbColumns.get(w.name);
    if (!h) {
      problems.push(`${t}.${w.name}: column missing from the database (schema.prisma: ${w.declared ?? w.type})`);
      continue;
    }
    if (w.type !== h.type) {
      problems.push(
        `${t}.${w.name}: type ${w.type} in schema.prisma (${w.declared ?? w.type}), ${h.type} in the database`,
      );
    }
    if (w.nullable !== h.nullable) {
      const say = (nullable: boolean) => (nullable ? "nullable" : "NOT NULL");
      problems.push(
        `${t}.${w.name}: ${say(w.nullable)} in schema.prisma (${w.declared ?? w.type}), ${say(h.nullable)} in the database`,
      );
    }
    if (w.default !== h.default) {
      problems.push(
        `${t}.${w.name}: default ${showDefault(w.default)} in schema.prisma, ${showDefault(h.default)} in the database`,
      );
    }
  }
  for (const h of have.columns) {
    if (!want.columns.some((c) => c.name === h.name))
      problems.push(`${t}.${h.name}: column in the database (${h.type}) but not in schema.prisma`);
  }

  const showPk = (pk: Table["primaryKey"]) => (pk ? `${pk.name} ${list(pk.columns)}` : "none");
  if (showPk(want.primaryKey) !== showPk(have.primaryKey)) {
    problems.push(
      `${t}: primary key ${showPk(want.primaryKey)} in schema.prisma, ${showPk(have.primaryKey)} in the database`,
    );
  }

  const indexKey = (i: Index) =>
    `${i.unique ? "unique index" : "index"} ${list(i.columns)}${i.method === "btree" ? "" : ` USING ${i.method}`}`;
  const dbIndexes = [...have.indexes];
  for (const w of want.indexes) {
    const at = dbIndexes.findIndex((h) => indexKey(h) === indexKey(w));
    if (at < 0) {
      problems.push(`${t}: ${indexKey(w)} (${w.name}) missing from the database`);
      continue;
    }
    const [h] = dbIndexes.splice(at, 1);
    if (h!.name !== w.name)
      problems.push(`${t}: ${indexKey(w)} is named ${h!.name} in the database, ${w.name} in schema.prisma`);
  }
  for (const h of dbIndexes) problems.push(`${t}: ${indexKey(h)} (${h.name}) in the database but not in schema.prisma`);

  const fkKey = (f: ForeignKey) => `foreign key ${list(f.columns)} -> ${f.refTable}${list(f.refColumns)}`;
  const dbForeignKeys = [...have.foreignKeys];
  for (const w of want.foreignKeys) {
    const at = dbForeignKeys.findIndex((h) => fkKey(h) === fkKey(w));
    if (at < 0) {
      problems.push(`${t}: ${fkKey(w)} ON DELETE ${w.onDelete} (${w.name}) missing from the database`);
      continue;
    }
    const [h] = dbForeignKeys.splice(at, 1);
    if (h!.onDelete !== w.onDelete)
      problems.push(`${t}: ${fkKey(w)} ON DELETE ${w.onDelete} in schema.prisma, ${h!.onDelete} in the database`);
    if (h!.onUpdate !== w.onUpdate)
      problems.push(`${t}: ${fkKey(w)} ON UPDATE ${w.onUpdate} in schema.prisma, ${h!.onUpdate} in the database`);
    if (h!.name !== w.name)
      problems.push(`${t}: ${fkKey(w)} is named ${h!.name} in the database, ${w.name} in schema.prisma`);
    if (h!.unsupported)
      problems.push(`${t}: ${fkKey(w)} is ${h!.unsupported} in the database, which schema.prisma cannot declare`);
  }
  for (const h of dbForeignKeys)
    problems.push(`${t}: ${fkKey(h)} ON DELETE ${h.onDelete} (${h.name}) in the database but not in schema.prisma`);

  return problems;
}
