// The console's sections, in navigation order. Sections without a screen yet say so honestly.

export interface ConsoleSection {
  href: string;
  label: string;
  /** What the section will manage, for its "coming later" page. */
  summary: string;
}

export const SECTIONS: readonly ConsoleSection[] = [
  { href: "/console/api-keys", label: "API keys", summary: "API keys for integrations that call the REST API." },
  { href: "/console/organizations", label: "Organizations", summary: "Tenant organizations, their subscription tiers and settings." },
  { href: "/console/users", label: "Users", summary: "Users, their memberships and their external identities." },
  { href: "/console/roles", label: "Roles", summary: "Roles, the permissions they hold, and who holds them." },
  { href: "/console/plugins", label: "Plugins", summary: "System plugins and the versions organizations may use." },
  { href: "/console/models", label: "Models", summary: "The catalog of LLM providers and models." },
  { href: "/console/oauth-clients", label: "OAuth clients", summary: "OAuth2 clients and their secrets." },
  { href: "/console/settings", label: "Platform settings", summary: "Platform settings and subscription tier quotas." },
];

export const sectionAt = (href: string): ConsoleSection => {
  const section = SECTIONS.find((s) => s.href === href);
  if (!section) throw new Error(`No console section at ${href}`);
  return section;
};
