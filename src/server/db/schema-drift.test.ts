import { describe, expect, it } from "vitest";
import { testDatabase } from "@/test/database";
import { queryOnce } from "@/test/postgres";
import {
  databaseDefault,
  databaseModel,
  defaultName,
  diff,
  primaryKeyName,
  schemaModel,
  type AllowedObject,
} from "@/test/schema-drift";

// schema.prisma and prisma/migrations must describe the same database (no drift): a database built
// by the migrations is compared with what Prisma would create for schema.prisma. What Prisma cannot
// express is accepted only when listed here, definition and all.
const ALLOWED: AllowedObject[] = [
  ...(
    [
      ["organizations", "organizations_domain_key", "(domain) WHERE (domain IS NOT NULL)"],
      ["central_points", "central_points_org_id_name_key", "(org_id, name) WHERE (NOT is_deleted)"],
      ["users", "users_username_key", "(username) WHERE (NOT is_deleted)"],
      ["users", "users_email_key", "(email) WHERE ((NOT is_deleted) AND (email IS NOT NULL))"],
      ["user_roles", "user_roles_user_id_role_id_global_key", "(user_id, role_id) WHERE (org_id IS NULL)"],
      ["user_roles", "user_roles_user_id_role_id_org_id_key", "(user_id, role_id, org_id) WHERE (org_id IS NOT NULL)"],
      ["plugins", "plugins_system_pid_version_key", "(pid, version) WHERE ((source)::text = 'system'::text)"],
      ["plugins", "plugins_org_pid_version_key", "(org_id, pid, version) WHERE ((source)::text = 'org'::text)"],
      ["plugins", "plugins_system_pid_latest_key", "(pid) WHERE (((source)::text = 'system'::text) AND is_latest)"],
      ["plugins", "plugins_org_pid_latest_key", "(org_id, pid) WHERE (((source)::text = 'org'::text) AND is_latest)"],
      [
        "provider_model_configs",
        "provider_model_configs_provider_model_id_enabled_key",
        "(provider, model_id) WHERE enabled",
      ],
      ["organization_domains", "organization_domains_org_id_domain_key", "(org_id, domain) WHERE (NOT is_deleted)"],
      [
        "organization_domains",
        "organization_domains_verified_domain_key",
        "(domain) WHERE (((status)::text = 'verified'::text) AND (NOT is_deleted))",
      ],
      [
        "invitations",
        "invitations_pending_email_key",
        "(org_id, lower((email)::text)) WHERE ((status)::text = 'pending'::text)",
      ],
    ] as const
  ).map(([table, name, rest]): AllowedObject => ({
    kind: "index",
    table,
    name,
    definition: `CREATE UNIQUE INDEX ${name} ON ${table} USING btree ${rest}`,
    reason: "partial unique index; Prisma has no WHERE on @@unique",
  })),
  ...(
    [
      ["scim_users", "scim_users_user_name_unique", "(org_id, lower((user_name)::text))"],
      ["scim_groups", "scim_groups_display_name_unique", "(org_id, lower((display_name)::text))"],
      ["scim_users", "scim_users_external_id_unique", "(org_id, external_id) WHERE (external_id IS NOT NULL)"],
    ] as const
  ).map(([table, name, rest]): AllowedObject => ({
    kind: "index",
    table,
    name,
    definition: `CREATE UNIQUE INDEX ${name} ON ${table} USING btree ${rest}`,
    reason: "unique per organization, case-insensitively or where set; Prisma has no expression or WHERE on @@unique",
  })),
  {
    kind: "constraint",
    table: "webhook_deliveries",
    name: "webhook_deliveries_status_check",
    definition:
      "CHECK (((status)::text = ANY ((ARRAY['pending'::character varying, 'delivered'::character varying, 'failed'::character varying])::text[])))",
    reason: "a delivery is pending, delivered or failed",
  },
  {
    kind: "constraint",
    table: "invitations",
    name: "invitations_status_check",
    definition:
      "CHECK (((status)::text = ANY ((ARRAY['pending'::character varying, 'accepted'::character varying, 'revoked'::character varying, 'expired'::character varying])::text[])))",
    reason: "an invitation is pending, accepted, revoked or expired",
  },
  {
    kind: "constraint",
    table: "invitations",
    name: "invitations_delivery_check",
    definition:
      "CHECK (((delivery)::text = ANY ((ARRAY['queued'::character varying, 'sent'::character varying, 'failed'::character varying, 'not_configured'::character varying])::text[])))",
    reason: "an invitation's email is queued, sent, failed or not configured",
  },
  {
    kind: "constraint",
    table: "organization_domains",
    name: "organization_domains_status_check",
    definition:
      "CHECK (((status)::text = ANY ((ARRAY['pending'::character varying, 'verified'::character varying, 'failed'::character varying])::text[])))",
    reason: "a domain is pending, verified or failed",
  },
  {
    kind: "constraint",
    table: "sso_connections",
    name: "sso_connections_type_check",
    definition: "CHECK (((type)::text = ANY ((ARRAY['oidc'::character varying, 'saml'::character varying])::text[])))",
    reason: "a connection speaks OIDC or SAML",
  },
  {
    kind: "constraint",
    table: "sso_message_ids",
    name: "sso_message_ids_kind_check",
    definition:
      "CHECK (((kind)::text = ANY ((ARRAY['request'::character varying, 'assertion'::character varying])::text[])))",
    reason: "a SAML message id is a request sent or an assertion accepted",
  },
  {
    kind: "constraint",
    table: "plugins",
    name: "plugins_source_org_id_check",
    definition:
      "CHECK (((((source)::text = 'system'::text) AND (org_id IS NULL)) OR (((source)::text = 'org'::text) AND (org_id IS NOT NULL))))",
    reason: "system plugins have no organization, organization plugins have one",
  },
  {
    kind: "constraint",
    table: "email_verifications",
    name: "email_verifications_delivery_check",
    definition:
      "CHECK (((delivery)::text = ANY ((ARRAY['queued'::character varying, 'sent'::character varying, 'failed'::character varying])::text[])))",
    reason: "a verification link's email is queued, sent or failed",
  },
  {
    kind: "constraint",
    table: "users",
    name: "users_kind_check",
    definition:
      "CHECK (((kind)::text = ANY ((ARRAY['human'::character varying, 'service'::character varying])::text[])))",
    reason: "a user is a person or a service account",
  },
  {
    kind: "constraint",
    table: "users",
    name: "users_service_no_password_check",
    definition: "CHECK ((((kind)::text = 'human'::text) OR (password_hash IS NULL)))",
    reason: "a service account never has a password",
  },
  {
    kind: "constraint",
    table: "api_keys",
    name: "api_keys_rate_limit_check",
    // The whole CASE as PostgreSQL prints it; the bounds and the fixed set of members are what matter.
    definition:
      /^CHECK \(\(\(rate_limit IS NULL\) OR\s+CASE\s+WHEN \(\(jsonb_typeof\(rate_limit\) = 'object'::text\) AND \(\(\(rate_limit - 'requests'::text\) - 'window_seconds'::text\) = '\{\}'::jsonb\).*\(10000000\)::numeric.*\(86400\)::numeric.*\s+ELSE false\s+END\)\)$/s,
    reason: "a key's own rate limit is {requests: 1..10000000, window_seconds: 1..86400} or null",
  },
  {
    kind: "constraint",
    table: "api_keys",
    name: "api_keys_credits_check",
    definition:
      /^CHECK .*credits_remaining <= '1000000000000'::bigint.*credits_refill_interval\)::text = 'daily'::text\) AND \(credits_refill_day IS NULL\).*credits_refill_interval\)::text = 'monthly'::text\) AND \(\(credits_refill_day >= 1\) AND \(credits_refill_day <= 31\)\).*$/s,
    reason:
      "a balance of 0..10^12 or none; a refill (1..10^12, daily without a day or monthly on day 1..31) only with a balance",
  },
  {
    kind: "constraint",
    table: "api_keys",
    name: "api_keys_meta_check",
    definition: "CHECK ((jsonb_typeof(meta) = 'object'::text))",
    reason: "a key's metadata is a JSON object",
  },
  {
    kind: "index",
    table: "api_keys",
    name: "api_keys_credits_key_id_idx",
    definition:
      "CREATE INDEX api_keys_credits_key_id_idx ON api_keys USING btree (credits_key_id) WHERE (credits_key_id IS NOT NULL)",
    reason: "partial index of rolled keys by the key whose credits they spend; Prisma has no WHERE on @@index",
  },
  {
    kind: "constraint",
    table: "api_key_usage",
    name: "api_key_usage_outcome_check",
    definition:
      "CHECK (((outcome)::text = ANY ((ARRAY['2xx'::character varying, '4xx'::character varying, '401'::character varying, '403'::character varying, '429'::character varying, '5xx'::character varying])::text[])))",
    reason: "a usage bucket counts one of the six outcomes",
  },
  {
    kind: "constraint",
    table: "api_key_usage_totals",
    name: "api_key_usage_totals_outcome_check",
    definition:
      "CHECK (((outcome)::text = ANY ((ARRAY['2xx'::character varying, '4xx'::character varying, '401'::character varying, '403'::character varying, '429'::character varying, '5xx'::character varying])::text[])))",
    reason: "a usage total counts one of the six outcomes",
  },
  {
    kind: "index",
    table: "api_key_usage",
    name: "api_key_usage_refusals_idx",
    definition:
      "CREATE INDEX api_key_usage_refusals_idx ON api_key_usage USING btree (hour) INCLUDE (key_id, count) WHERE ((outcome)::text = ANY ((ARRAY['401'::character varying, '403'::character varying, '429'::character varying])::text[]))",
    reason:
      "partial index of refusals by hour with their key and count (the overview's most refused keys); Prisma has no WHERE or INCLUDE on @@index",
  },
  {
    kind: "index",
    table: "api_keys",
    name: "api_keys_expires_at_idx",
    definition:
      "CREATE INDEX api_keys_expires_at_idx ON api_keys USING btree (expires_at) WHERE (is_active AND (NOT is_deleted))",
    reason:
      "partial index of usable keys by expiry, those without one included (active and expiring keys); Prisma has no WHERE on @@index",
  },
  {
    kind: "constraint",
    table: "audit_events",
    name: "audit_events_actor_auth_check",
    definition:
      "CHECK (((actor_auth)::text = ANY ((ARRAY['session'::character varying, 'api_key'::character varying, 'cli'::character varying, 'system'::character varying, 'scim'::character varying])::text[])))",
    reason: "an event's actor signed in, presented a key, ran the CLI, is the system, or a directory (SCIM)",
  },
  {
    kind: "constraint",
    table: "audit_events",
    name: "audit_events_outcome_check",
    definition:
      "CHECK (((outcome)::text = ANY ((ARRAY['success'::character varying, 'denied'::character varying])::text[])))",
    reason: "an event is a change made or a request refused",
  },
  ...(
    [
      ["organizations", ["name", "display_name", "domain"]],
      ["users", ["username", "display_name", "email"]],
    ] as const
  ).flatMap(([table, [first, second, third]]): AllowedObject[] => {
    // The searched columns lower-cased and joined, each after U+001F, as PostgreSQL prints them.
    const joined = `lower(((((('\u001f'::text || (COALESCE(${first}, ''::character varying))::text) || '\u001f'::text) || (COALESCE(${second}, ''::character varying))::text) || '\u001f'::text) || (COALESCE(${third}, ''::character varying))::text))`;
    return [
      {
        kind: "column",
        table,
        name: "search_typed",
        definition: `text GENERATED ALWAYS AS ${joined} STORED`,
        reason: "the q search's text as typed, tested on each row the index gives; Prisma has no generated columns",
      },
      {
        kind: "column",
        table,
        name: "search_written",
        definition: `text GENERATED ALWAYS AS svc_search_text(${joined}) STORED`,
        reason:
          "the q search's text with its punctuation kept in words, which its trigram index holds; Prisma has no generated columns",
      },
      {
        kind: "index",
        table,
        name: `${table}_search_trgm_idx`,
        definition: `CREATE INDEX ${table}_search_trgm_idx ON ${table} USING gin (search_written gin_trgm_ops)`,
        reason: "trigram index of the q search; Prisma's schema has no operator classes on GIN indexes",
      },
    ];
  }),
  {
    kind: "trigger",
    table: /^/,
    name: /_touch_updated_at$/,
    definition:
      /^CREATE TRIGGER (\w+)_touch_updated_at BEFORE UPDATE ON \1 FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at\(\)$/,
    reason: "the database refreshes updated_at on every update, whoever writes the row",
  },
  {
    kind: "partitioning",
    table: "messages",
    name: "messages",
    definition: "RANGE (created_at)",
    reason: "messages is partitioned by month",
  },
  {
    kind: "partition",
    table: "messages",
    name: "messages_default",
    definition: "DEFAULT",
    reason: "rows outside the monthly partitions",
  },
  {
    kind: "partition",
    table: "messages",
    name: /^messages_p\d{4}_\d{2}$/,
    definition: /^FOR VALUES FROM \('\d{4}-\d{2}-01 00:00:00\+00'\) TO \('\d{4}-\d{2}-01 00:00:00\+00'\)$/,
    reason: "monthly partitions, created by svc_ensure_message_partitions()",
  },
];

const migrated = await testDatabase();
const drifted = await testDatabase();

describe("schema drift", () => {
  it("schema.prisma and the migrations agree", async () => {
    const schema = schemaModel();
    const database = await databaseModel(migrated.url);
    expect(diff(schema, database, ALLOWED), "schema.prisma and prisma/migrations disagree").toEqual([]);
    // The comparison is not vacuous: every model was matched against a table with its columns and keys.
    expect(database.tables.map((t) => t.name).sort()).toEqual(schema.tables.map((t) => t.name).sort());
    // The 18 core tables, audit_events, the two of two-factor sign-in, the one of email verification,
    // the two of key usage, the four of webhooks, organization_domains, invitations, the two of SSO
    // and the five of directory sync (SCIM).
    expect(schema.tables).toHaveLength(37);
  });

  it("the updated_at trigger is on exactly the tables whose model has @updatedAt", async () => {
    const schema = schemaModel();
    const database = await databaseModel(migrated.url);
    const withUpdatedAt = schema.tables.filter((t) => t.columns.some((c) => c.updatedAt)).map((t) => t.name);
    const withTrigger = database.extras.filter((e) => e.kind === "trigger").map((e) => e.table);
    expect(withTrigger.sort()).toEqual(withUpdatedAt.sort());
  });

  it("reports every kind of drift, one readable line each", async () => {
    await queryOnce(
      drifted.url,
      `ALTER TABLE users ALTER COLUMN locale TYPE varchar(40);
       CREATE INDEX extra ON users(bio);
       ALTER TABLE roles ALTER COLUMN scope DROP NOT NULL;
       ALTER TABLE organizations ALTER COLUMN status SET DEFAULT 'inactive';
       ALTER TABLE api_keys ADD COLUMN note text;
       ALTER TABLE roles ADD COLUMN lowered text GENERATED ALWAYS AS (lower(name)) STORED;
       ALTER TABLE user_oauth_identities DROP COLUMN updated_at;
       DROP INDEX plugins_pid_idx;
       ALTER INDEX roles_name_key RENAME TO roles_name_unique;
       ALTER TABLE conversations DROP CONSTRAINT conversations_instance_id_fkey;
       ALTER TABLE conversations ADD CONSTRAINT conversations_instance_id_fkey FOREIGN KEY (instance_id)
         REFERENCES orchestrator_instances(id) ON DELETE CASCADE ON UPDATE CASCADE;
       ALTER TABLE messages DROP CONSTRAINT messages_pkey;
       ALTER TABLE messages ADD CONSTRAINT messages_pkey PRIMARY KEY (created_at, id);
       ALTER TABLE plugins ADD CONSTRAINT plugins_pid_check CHECK (pid <> '');
       DROP INDEX users_username_key;
       CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
       CREATE TABLE stray (id integer);`,
    );
    const problems = diff(schemaModel(), await databaseModel(drifted.url), ALLOWED);
    expect(problems.sort()).toEqual(
      [
        "users.locale: type character varying(35) in schema.prisma (String? @db.VarChar(35)), character varying(40) in the database",
        "users: index (bio) (extra) in the database but not in schema.prisma",
        "roles.scope: NOT NULL in schema.prisma (String @db.VarChar(50)), nullable in the database",
        'organizations.status: default "active" in schema.prisma, "inactive" in the database',
        "api_keys.note: column in the database (text) but not in schema.prisma",
        "roles: column lowered is not expressible in schema.prisma and not in the allow-list: text GENERATED ALWAYS AS lower((name)::text) STORED",
        "user_oauth_identities.updated_at: column missing from the database (schema.prisma: DateTime @db.Timestamptz(6))",
        "plugins: index (pid) (plugins_pid_idx) missing from the database",
        "roles: unique index (name) is named roles_name_unique in the database, roles_name_key in schema.prisma",
        "conversations: foreign key (instance_id) -> orchestrator_instances(id) ON DELETE SetNull in schema.prisma, Cascade in the database",
        "messages: primary key messages_pkey (id, created_at) in schema.prisma, messages_pkey (created_at, id) in the database",
        "plugins: constraint plugins_pid_check is not expressible in schema.prisma and not in the allow-list: CHECK (((pid)::text <> ''::text))",
        "allow-list entry index users.users_username_key matches nothing in the database: CREATE UNIQUE INDEX users_username_key ON users USING btree (username) WHERE (NOT is_deleted)",
        "users: index users_username_lower_key is not expressible in schema.prisma and not in the allow-list: CREATE UNIQUE INDEX users_username_lower_key ON users USING btree (lower((username)::text))",
        "table stray: in the database but no model of schema.prisma maps to it",
      ].sort(),
    );
  });
});

describe("schema model (Prisma's parser)", () => {
  const schema = schemaModel(`
    datasource db {
      provider = "postgresql"
    }
    enum Status {
      ON  @map("on")
      OFF
      @@map("status_t")
    }
    model Parent {
      id     Int     @id @default(autoincrement())
      code   String  @unique(map: "parent_code") @map("the_code") @db.Char(3)
      status Status  @default(ON)
      price  Decimal @default(1.5)
      data   Json    @default("{\\"a\\": [1, 2]}")
      seen   DateTime
      kids   Child[] @relation("p")
      owned  Child[] @relation("o")
      @@index([seen(sort: Desc), price])
      @@index([price], type: Hash)
      @@map("parents")
    }
    model Child {
      a         Int
      b         String  @default(uuid())
      parent_id Int?
      owner_id  Int
      parent    Parent? @relation("p", fields: [parent_id], references: [id])
      owner     Parent  @relation("o", fields: [owner_id], references: [id], onUpdate: Restrict)
      @@id([a, b])
    }
  `);
  const parents = schema.tables.find((t) => t.name === "parents")!;
  const child = schema.tables.find((t) => t.name === "Child")!;

  it("maps types, names, nullability and defaults as Prisma's migrations would", () => {
    expect(parents.columns).toEqual([
      { name: "id", type: "integer", nullable: false, default: "autoincrement()", declared: "Int", updatedAt: false },
      {
        name: "the_code",
        type: "character(3)",
        nullable: false,
        default: null,
        declared: "String @db.Char(3)",
        updatedAt: false,
      },
      { name: "status", type: "status_t", nullable: false, default: '"on"', declared: "Status", updatedAt: false },
      { name: "price", type: "numeric(65,30)", nullable: false, default: "1.5", declared: "Decimal", updatedAt: false },
      {
        name: "data",
        type: "jsonb",
        nullable: false,
        default: JSON.stringify('{"a":[1,2]}'),
        declared: "Json",
        updatedAt: false,
      },
      {
        name: "seen",
        type: "timestamp(3) without time zone",
        nullable: false,
        default: null,
        declared: "DateTime",
        updatedAt: false,
      },
    ]);
    expect(parents.primaryKey).toEqual({ name: "parents_pkey", columns: ["id"] });
    expect(parents.indexes).toEqual([
      { name: "parent_code", unique: true, columns: ["the_code"], method: "btree" },
      { name: "parents_seen_price_idx", unique: false, columns: ["seen DESC", "price"], method: "btree" },
      { name: "parents_price_idx", unique: false, columns: ["price"], method: "hash" },
    ]);
    expect(schema.enums).toEqual([{ name: "status_t", values: ["on", "OFF"] }]);
    expect(child.columns.find((c) => c.name === "b")?.default).toBeNull(); // uuid() is made by Prisma Client
    expect(child.primaryKey).toEqual({ name: "Child_pkey", columns: ["a", "b"] });
  });

  it("applies Prisma's default referential actions", () => {
    expect(child.foreignKeys).toEqual([
      {
        name: "Child_parent_id_fkey",
        columns: ["parent_id"],
        refTable: "parents",
        refColumns: ["id"],
        onDelete: "SetNull",
        onUpdate: "Cascade",
      },
      {
        name: "Child_owner_id_fkey",
        columns: ["owner_id"],
        refTable: "parents",
        refColumns: ["id"],
        onDelete: "Restrict",
        onUpdate: "Restrict",
      },
    ]);
  });

  it("reports an invalid schema with Prisma's message", () => {
    expect(() => schemaModel("model X {\n  id Int\n}\n")).toThrow(
      /schema.prisma does not validate:[\s\S]*unique criteria/,
    );
  });

  it("names constraints as Prisma does, cut to 63 bytes", () => {
    expect(primaryKeyName("users")).toBe("users_pkey");
    expect(defaultName("users", ["a", "b"], "_key")).toBe("users_a_b_key");
    const long = "t".repeat(40);
    expect(defaultName(long, ["c".repeat(30)], "_idx")).toBe(`${long}_${"c".repeat(18)}_idx`);
    expect(defaultName(long, ["c".repeat(30)], "_fkey")).toHaveLength(63);
    expect(primaryKeyName("p".repeat(70))).toBe(`${"p".repeat(58)}_pkey`);
  });

  it("reads column defaults as PostgreSQL prints them", () => {
    expect(databaseDefault("nextval('users_id_seq'::regclass)", "integer")).toBe("autoincrement()");
    expect(databaseDefault("CURRENT_TIMESTAMP", "timestamp(6) with time zone")).toBe("now()");
    expect(databaseDefault("svc_uuid_v7()", "uuid")).toBe("dbgenerated(svc_uuid_v7())");
    expect(databaseDefault("'it''s'::character varying", "character varying(10)")).toBe(JSON.stringify("it's"));
    expect(databaseDefault(`'{"a": [1, 2]}'::jsonb`, "jsonb")).toBe(JSON.stringify('{"a":[1,2]}'));
    expect(databaseDefault("'-1'::integer", "integer")).toBe("-1");
    expect(databaseDefault("1.5", "numeric(65,30)")).toBe("1.5");
    expect(databaseDefault("false", "boolean")).toBe("false");
    expect(databaseDefault(null, "text")).toBeNull();
  });
});
