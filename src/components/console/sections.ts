// The console's sections, in navigation order.

export interface ConsoleSection {
  href: string;
  label: string;
}

export const SECTIONS: readonly ConsoleSection[] = [
  { href: "/console/overview", label: "Overview" },
  { href: "/console/api-keys", label: "API keys" },
  { href: "/console/organizations", label: "Organizations" },
  { href: "/console/users", label: "Users" },
  { href: "/console/roles", label: "Roles" },
  { href: "/console/plugins", label: "Plugins" },
  { href: "/console/models", label: "Models" },
  { href: "/console/oauth-clients", label: "OAuth clients" },
  { href: "/console/settings", label: "Platform settings" },
  { href: "/console/webhooks", label: "Webhooks" },
  { href: "/console/audit-log", label: "Audit log" },
];
