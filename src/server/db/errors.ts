import "server-only";
import { DomainError } from "@/server/errors";

// Database errors become domain errors here, by SQLSTATE and constraint name, whichever driver
// adapter raised them (Prisma's own error codes differ between adapters for the same violation).

interface ConstraintRule {
  code: "conflict" | "validation_failed" | "not_found" | "domain_taken";
  path: string;
  message: string;
}

const conflict = (path: string, message: string): ConstraintRule => ({ code: "conflict", path, message });
const invalid = (path: string, message: string): ConstraintRule => ({ code: "validation_failed", path, message });

const CONSTRAINTS: Record<string, ConstraintRule> = {
  platform_settings_key_key: conflict("key", "A platform setting with this key exists."),
  organizations_domain_key: conflict("domain", "Another organization uses this domain."),
  organization_settings_org_id_key_key: conflict("key", "The organization already has this setting."),
  central_points_org_id_name_key: conflict("name", "The organization already has a central point with this name."),
  central_points_orchestrator_id_fkey: conflict(
    "orchestrator_id",
    "A central point refers to this orchestrator instance.",
  ),
  organization_domains_org_id_domain_key: conflict("domain", "The organization already claims this domain."),
  // Two organizations verifying one domain at once: the second commit meets the first's row.
  organization_domains_verified_domain_key: {
    code: "domain_taken",
    path: "domain",
    message: "Another organization has verified this domain.",
  },
  users_username_key: conflict("username", "This username is taken."),
  users_email_key: conflict("email", "Another user has this email."),
  user_org_memberships_user_id_org_id_key: conflict("user_id", "The user is already a member of the organization."),
  user_oauth_identities_provider_provider_user_id_key: conflict(
    "provider_user_id",
    "This external identity is already linked to a user.",
  ),
  roles_name_key: conflict("name", "A role with this name exists."),
  role_permissions_role_id_permission_key: conflict("permission", "The role already has this permission."),
  user_roles_user_id_role_id_global_key: conflict("role_id", "The user already holds this role."),
  user_roles_user_id_role_id_org_id_key: conflict("role_id", "The user already holds this role in the organization."),
  oauth2_clients_client_id_key: conflict("client_id", "An OAuth client with this client_id exists."),
  api_keys_key_hash_key: conflict("key", "This key exists."),
  api_keys_rate_limit_check: invalid(
    "rate_limit",
    "Must be {requests: 1..10000000, window_seconds: 1..86400} or null.",
  ),
  plugins_system_pid_version_key: conflict("version", "This version of the plugin is already registered."),
  plugins_org_pid_version_key: conflict("version", "This version of the plugin is already registered."),
  plugins_system_pid_latest_key: conflict("is_latest", "Another version of the plugin is marked latest."),
  plugins_org_pid_latest_key: conflict("is_latest", "Another version of the plugin is marked latest."),
  plugins_source_org_id_check: invalid(
    "org_id",
    "A system plugin has no organization; an organization plugin needs one.",
  ),
  provider_model_configs_provider_model_id_enabled_key: conflict(
    "model_id",
    "An enabled model with this provider and model_id exists.",
  ),
};

interface DbErrorFacts {
  sqlState?: string;
  constraint?: string;
  message: string;
}

/** Pulls SQLSTATE and constraint out of a Prisma driver-adapter error or a raw node-postgres error. */
function facts(error: unknown): DbErrorFacts | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as {
    code?: unknown;
    constraint?: unknown;
    message?: unknown;
    meta?: { driverAdapterError?: { cause?: Record<string, unknown> } };
  };
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause) {
    const message = String(cause.originalMessage ?? cause.message ?? "");
    const named = (cause.constraint as { index?: string } | undefined)?.index;
    return {
      sqlState: typeof cause.originalCode === "string" ? cause.originalCode : undefined,
      constraint: named ?? /constraint "([^"]+)"/.exec(message)?.[1],
      message,
    };
  }
  if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) {
    return {
      sqlState: e.code,
      constraint: typeof e.constraint === "string" ? e.constraint : undefined,
      message: String(e.message ?? ""),
    };
  }
  return undefined;
}

// Connection-level failures: the database is down, unreachable, silent, overloaded or out of
// connections. Each is a 503 (retry later), never a 500, whichever layer reports it: Prisma (its
// codes, or the driver adapter's kind), node-postgres and the pool (messages, having no code), or
// the socket (errno codes).
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "TlsConnectionError",
]);
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
const UNAVAILABLE_DRIVER_MESSAGES =
  /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end)/;

function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as {
    code?: unknown;
    message?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown } } };
  };
  if (typeof e.code === "string" && (UNAVAILABLE_PRISMA_CODES.has(e.code) || UNAVAILABLE_SOCKET_CODES.has(e.code)))
    return true;
  const kind = e.meta?.driverAdapterError?.cause?.kind;
  if (typeof kind === "string" && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
  return e.code === undefined && typeof e.message === "string" && UNAVAILABLE_DRIVER_MESSAGES.test(e.message);
}

/**
 * The domain error a database error stands for, or undefined when it is not one we understand
 * (the caller then rethrows it). Never copies the database's detail, which can hold row values.
 */
export function mapDatabaseError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (isConnectionFailure(error)) return new DomainError("unavailable", "The database cannot be reached.");
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "P2025") return new DomainError("not_found", "No such resource.");
  const f = facts(error);
  if (!f?.sqlState) return undefined;
  const rule = f.constraint ? CONSTRAINTS[f.constraint] : undefined;
  if (rule) {
    return new DomainError(rule.code, rule.message, {
      constraint: f.constraint,
      errors: [{ path: rule.path, message: rule.message }],
    });
  }
  switch (f.sqlState) {
    case "23505":
      return new DomainError("conflict", "A uniqueness rule would be broken.", { constraint: f.constraint });
    case "23503":
      // "insert or update" names a missing referenced row; "update or delete" a row still referenced.
      return f.message.startsWith("update or delete")
        ? new DomainError("conflict", "Other records still refer to this one.", { constraint: f.constraint })
        : new DomainError("not_found", "A referenced record does not exist.", { constraint: f.constraint });
    case "23514":
    case "23502":
    case "22001":
    case "22P02":
    case "22007":
    case "22003":
      return new DomainError("validation_failed", "A value is not valid for its column.", { constraint: f.constraint });
    // A statement over statement_timeout, an idle transaction ended by the server, a server
    // shutting down or starting, too many connections, out of resources (class 53).
    case "57014":
    case "25P03":
    case "57P01":
    case "57P02":
    case "57P03":
      return new DomainError("unavailable", "The database cannot serve the request now.");
    default:
      if (f.sqlState.startsWith("08")) return new DomainError("unavailable", "The database cannot be reached.");
      if (f.sqlState.startsWith("53"))
        return new DomainError("unavailable", "The database cannot serve the request now.");
      return undefined;
  }
}
