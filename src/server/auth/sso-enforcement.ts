import "server-only";
import { dataLayer } from "@/server/db/data-layer";
import { processState } from "@/server/process-state";
import type { SessionActor } from "./actor";
import { cacheLifetimeMs, listenForInvalidations, onInvalidation } from "./invalidation";

// An organization whose SSO connection enforces admits console sessions signed in through one of its
// enforcing connections only: any other session holds nothing there — not its membership, not its
// roles — as if it were not a member. sys_admins are exempt (break glass); API keys never pass here.
// Which connections enforce is read once per process and re-read when one starts or stops (the
// connection's change announces "everything" on the invalidation channel).

type Enforced = ReadonlyMap<string, ReadonlySet<string>>;

const cache = () =>
  processState("ssoEnforcement", () => {
    const state: { read?: { at: number; enforced: Promise<Enforced> } } = {};
    onInvalidation((event) => {
      if ("all" in event) state.read = undefined;
    });
    return state;
  });

async function readEnforced(): Promise<Enforced> {
  const rows = await dataLayer("system:auth").ssoConnection.findMany({
    where: { enforce: true, enabled: true },
    select: { id: true, org_id: true },
  });
  const enforced = new Map<string, Set<string>>();
  for (const { id, org_id } of rows) enforced.set(org_id, (enforced.get(org_id) ?? new Set()).add(id));
  return enforced;
}

/** Organization id → the connections that enforce there. */
function enforcedConnections(): Promise<Enforced> {
  listenForInvalidations();
  const state = cache();
  const lifetime = cacheLifetimeMs();
  const now = Date.now();
  if (lifetime === 0) return readEnforced();
  if (!state.read || now - state.read.at > Math.min(60_000, lifetime)) {
    const enforced = readEnforced();
    state.read = { at: now, enforced };
    enforced.catch(() => (state.read = undefined));
  }
  return state.read.enforced;
}

/** The session's actor as it may act: without the organizations whose enforced SSO it did not sign in through. */
export async function withinSsoEnforcement(actor: SessionActor): Promise<SessionActor> {
  if (actor.grants.isSysAdmin) return actor;
  const enforced = await enforcedConnections();
  const closed = new Set(
    [...enforced]
      .filter(([, connections]) => !(actor.ssoConnectionId && connections.has(actor.ssoConnectionId)))
      .map(([orgId]) => orgId),
  );
  if (closed.size === 0) return actor;
  const open = <V>(map: ReadonlyMap<string, V>) => new Map([...map].filter(([orgId]) => !closed.has(orgId)));
  return {
    ...actor,
    grants: { ...actor.grants, byOrg: open(actor.grants.byOrg), memberships: open(actor.grants.memberships) },
    // Permissions held globally (a system role's) would still reach them: authorize.ts reads this too.
    ssoShutOut: closed,
  };
}
