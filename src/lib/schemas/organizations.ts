import { z } from "zod";
import { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/organizations";
import {
  DESCRIPTION_LENGTH,
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  listOf,
  pageQuery,
  searchTerm,
  softDeletedRecord,
  text,
} from "./common";

// Organizations: the tenant boundary. `subscription_tier` is called `tier` in the API.

export { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS } from "@/lib/organizations";
/** The most organizations one user belongs to: what an answer listing them all holds. */
export const MAX_ORGANIZATIONS_PER_USER = 1_000;
export const ORGANIZATION_DISPLAY_NAME_LENGTH = 500;
/** Countries and time zones: columns of 100 characters. */
const PLACE_LENGTH = 100;
/** The longest name DNS resolves (a column of 255 holds it). */
const DOMAIN_LENGTH = 253;

const optionalText = (max: number) => text(max).trim().nullable().optional();
const domain = text(DOMAIN_LENGTH)
  .trim()
  .toLowerCase()
  .regex(/^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain name like example.com")
  .meta({ examples: ["acme.example"] });

const fields = {
  display_name: optionalText(ORGANIZATION_DISPLAY_NAME_LENGTH),
  domain: domain.nullable().optional(),
  description: text(DESCRIPTION_LENGTH).nullable().optional(),
  contact_email: z.email().max(LENGTH.STANDARD).nullable().optional(),
  website: z
    .url({ protocol: /^https?$/ })
    .max(LENGTH.LONG)
    .nullable()
    .optional(),
  logo_url: z
    .url({ protocol: /^https$/ })
    .max(LENGTH.VERY_LONG)
    .nullable()
    .optional(),
  country: optionalText(PLACE_LENGTH),
  timezone: optionalText(PLACE_LENGTH),
};

export const createOrganizationInput = z
  .strictObject({
    name: text().trim().min(1),
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
  .strictObject({ name: text().trim().min(1).optional(), ...fields })
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
  q: searchTerm(
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
    name: text(),
    display_name: text(ORGANIZATION_DISPLAY_NAME_LENGTH).nullable(),
    domain: text().nullable(),
    tier: z.enum(SUBSCRIPTION_TIERS),
    status: text(LENGTH.SHORT),
    description: text(DESCRIPTION_LENGTH).nullable(),
    contact_email: text().nullable(),
    website: text(LENGTH.LONG).nullable(),
    logo_url: text(LENGTH.VERY_LONG).nullable(),
    country: text(PLACE_LENGTH).nullable(),
    timezone: text(PLACE_LENGTH).nullable(),
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
export type Organization = z.input<typeof organizationSchema>;
export const organizationListSchema = listOf(organizationSchema);
