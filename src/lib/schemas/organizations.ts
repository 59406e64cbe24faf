import { z } from "zod";
import { EXAMPLE_LIVE_RECORD, id, includeDeleted, listOf, pageQuery, softDeletedRecord } from "./common";

// Organizations: the tenant boundary. `subscription_tier` is called `tier` in the API.

export const SUBSCRIPTION_TIERS = ["free", "pro", "enterprise"] as const;
export const ORGANIZATION_STATUSES = ["active", "suspended", "archived"] as const;

const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(255)
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    "must be a domain name like example.com",
  )
  .meta({ examples: ["acme.example"] });

const fields = {
  display_name: optionalText(500),
  domain: domain.nullable().optional(),
  description: z.string().max(10_000).nullable().optional(),
  contact_email: z.email().max(255).nullable().optional(),
  website: z
    .url({ protocol: /^https?$/ })
    .max(512)
    .nullable()
    .optional(),
  logo_url: z
    .url({ protocol: /^https$/ })
    .max(1000)
    .nullable()
    .optional(),
  country: optionalText(100),
  timezone: optionalText(100),
};

export const createOrganizationInput = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    ...fields,
    tier: z.enum(SUBSCRIPTION_TIERS).default("free"),
    status: z.enum(ORGANIZATION_STATUSES).default("active"),
  })
  .meta({
    examples: [
      {
        name: "acme",
        display_name: "Acme Corporation",
        domain: "acme.example",
        contact_email: "it@acme.example",
        tier: "pro",
      },
    ],
  });
export type CreateOrganizationInput = z.output<typeof createOrganizationInput>;

/** The profile, which the organization's own admins may edit. */
export const updateOrganizationInput = z
  .strictObject({ name: z.string().trim().min(1).max(255).optional(), ...fields })
  .meta({ examples: [{ display_name: "Acme Corp.", website: "https://acme.example" }] });
export type UpdateOrganizationInput = z.output<typeof updateOrganizationInput>;

/** Subscription tier and status: the platform's decision (svc:system:orgs:write), not the tenant's. */
export const updateSubscriptionInput = z
  .strictObject({
    tier: z.enum(SUBSCRIPTION_TIERS).optional(),
    status: z.enum(ORGANIZATION_STATUSES).optional(),
  })
  .meta({ examples: [{ tier: "enterprise" }] });
export type UpdateSubscriptionInput = z.output<typeof updateSubscriptionInput>;

export const listOrganizationsQuery = pageQuery.extend({
  q: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .optional()
    .describe(
      "Matches name, display name or domain, case aside; one or two characters match where a value or a word of it begins.",
    ),
  status: z.enum(ORGANIZATION_STATUSES).optional(),
  tier: z.enum(SUBSCRIPTION_TIERS).optional(),
  include_deleted: includeDeleted,
});
export type ListOrganizationsQuery = z.output<typeof listOrganizationsQuery>;

export const orgIdParams = z.strictObject({ org_id: id });

export const organizationSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    display_name: z.string().nullable(),
    domain: z.string().nullable(),
    tier: z.enum(SUBSCRIPTION_TIERS),
    status: z.string(),
    description: z.string().nullable(),
    contact_email: z.string().nullable(),
    website: z.string().nullable(),
    logo_url: z.string().nullable(),
    country: z.string().nullable(),
    timezone: z.string().nullable(),
    ...softDeletedRecord,
  })
  .meta({
    id: "Organization",
    examples: [
      {
        id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        name: "acme",
        display_name: "Acme Corporation",
        domain: "acme.example",
        tier: "pro",
        status: "active",
        description: null,
        contact_email: "it@acme.example",
        website: "https://acme.example",
        logo_url: null,
        country: "GB",
        timezone: "Europe/London",
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type Organization = z.infer<typeof organizationSchema>;
export const organizationListSchema = listOf(organizationSchema);
