import { z } from "zod";
import { id, list, listOf, pageQuery, searchTerm, text, moment } from "./common";
import { ORGANIZATION_DISPLAY_NAME_LENGTH } from "./organizations";
import { MAX_ROLES } from "./roles";

// Organization memberships: an organization's members and a user's organizations.

export const addMemberInput = z.strictObject({ user_id: id });
export type AddMemberInput = z.output<typeof addMemberInput>;

export const memberParams = z.strictObject({ org_id: id, user_id: id });

export const listMembersQuery = pageQuery.extend({
  q: searchTerm("Matches username, display name or email."),
});
export type ListMembersQuery = z.output<typeof listMembersQuery>;

export const listUserOrganizationsQuery = pageQuery;
export type ListUserOrganizationsQuery = z.output<typeof listUserOrganizationsQuery>;

const roleRef = z.object({ id: z.uuid(), name: text() });
const roleRefs = list(roleRef, MAX_ROLES);

export const memberSchema = z
  .object({
    org_id: z.uuid(),
    user_id: z.uuid(),
    username: text(),
    display_name: text().nullable(),
    email: text().nullable(),
    roles: roleRefs.describe("Org roles granted to the member in this organization."),
    suspended: z
      .boolean()
      .describe(
        "True while the organization's directory has the person inactive (SCIM): the membership reaches nothing.",
      ),
    created_at: moment.describe("When the user joined."),
  })
  .meta({
    id: "Member",
    examples: [
      {
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        user_id: "0193a5c2-41f0-7e2d-8a6b-3c9e5d7f1a22",
        username: "ada",
        display_name: "Ada Lovelace",
        email: "ada@example.com",
        roles: [{ id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b", name: "org_admin" }],
        suspended: false,
        created_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type Member = z.input<typeof memberSchema>;
export const memberListSchema = listOf(memberSchema);

const userOrganizationSchema = z
  .object({
    org_id: z.uuid(),
    name: text(),
    display_name: text(ORGANIZATION_DISPLAY_NAME_LENGTH).nullable(),
    roles: roleRefs.describe("Org roles granted to the user in this organization."),
    suspended: z
      .boolean()
      .describe(
        "True while the organization's directory has the user inactive (SCIM): the membership reaches nothing.",
      ),
    created_at: moment.describe("When the user joined."),
  })
  .meta({
    id: "UserOrganization",
    examples: [
      {
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        name: "acme",
        display_name: "Acme Corporation",
        roles: [{ id: "0193a5ca-9c0d-7e1f-8a2b-3c4d5e6f7a8b", name: "org_admin" }],
        suspended: false,
        created_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type UserOrganization = z.input<typeof userOrganizationSchema>;
export const userOrganizationListSchema = listOf(userOrganizationSchema);
