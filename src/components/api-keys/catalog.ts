import { ALL_PERMISSIONS, PERMISSIONS, type Permission } from "@/lib/permissions";

// The permission catalog grouped by resource for the scope picker: `svc:system:api_keys:read`
// belongs to "Platform API keys", `svc:orchestrators:write` to "Orchestrators".

export interface ScopeGroup {
  resource: string;
  label: string;
  scopes: { permission: Permission; dangerous: boolean; allows: string }[];
}

const WORDS: Record<string, string> = {
  system: "platform",
  org: "organization",
  orgs: "organizations",
  api_keys: "API keys",
  oauth_clients: "OAuth clients",
  llm_configs: "LLM configs",
};

function labelOf(resource: string): string {
  const text = resource
    .split(":")
    .map((word) => WORDS[word] ?? word.replaceAll("_", " "))
    .join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `svc:system:admin` → resource `system`; `svc:org:members:read` → `org:members`. */
const resourceOf = (permission: Permission): string => permission.split(":").slice(1, -1).join(":");

export const SCOPE_GROUPS: readonly ScopeGroup[] = (() => {
  const groups = new Map<string, ScopeGroup>();
  for (const permission of ALL_PERMISSIONS) {
    const resource = resourceOf(permission);
    let group = groups.get(resource);
    if (!group) {
      group = { resource, label: labelOf(resource), scopes: [] };
      groups.set(resource, group);
    }
    const { dangerous, allows } = PERMISSIONS[permission];
    group.scopes.push({ permission, dangerous, allows });
  }
  return [...groups.values()];
})();

export const isDangerousScope = (scope: string): boolean =>
  Object.hasOwn(PERMISSIONS, scope) && PERMISSIONS[scope as Permission].dangerous;
