import "server-only";
import {
  createDomainInput,
  domainListSchema,
  domainParams,
  domainSchema,
  listDomainsQuery,
} from "@/lib/schemas/domains";
import { orgIdParams } from "@/lib/schemas/organizations";
import { addDomain, deleteDomain, getDomain, listDomains, verifyDomain } from "@/server/services/domains/service";
import { defineOperation, inOrganization } from "./operation";

// An organization's domains, proven by a DNS TXT record; with membership.domain_policy auto_join,
// people with a verified email there join at sign-in.

const tag = "Domains";
const { BASE, ONE, read, write } = inOrganization("domains", "domain_id", {
  read: "svc:org:domains:read",
  write: "svc:org:domains:write",
});

export const domainOperations = {
  list: defineOperation({
    id: "listDomains",
    method: "GET",
    path: BASE,
    tag,
    summary: "List an organization's domains",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listDomainsQuery,
    response: domainListSchema,
    handler: ({ params, query, ...ctx }) => listDomains(ctx, params.org_id, query),
  }),
  add: defineOperation({
    id: "addDomain",
    method: "POST",
    path: BASE,
    tag,
    summary: "Claim a domain",
    description:
      "The domain is normalized (lower case, punycode, no trailing dot). Publish a TXT record named `txt_name` holding `txt_value`, then call verify. A public email provider's domain is refused (422 `public_email_domain`); the organization claims a domain once (409 `conflict`).",
    access: write,
    params: orgIdParams,
    body: createDomainInput,
    response: domainSchema,
    created: (domain) => domain.id,
    errors: ["not_found", "conflict", "public_email_domain", "quota_exceeded"],
    handler: ({ params, body, ...ctx }) => addDomain(ctx, params.org_id, body),
  }),
  get: defineOperation({
    id: "getDomain",
    method: "GET",
    path: ONE,
    tag,
    summary: "Read a domain",
    access: read,
    params: domainParams,
    response: domainSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getDomain(ctx, params.org_id, params.domain_id),
  }),
  verify: defineOperation({
    id: "verifyDomain",
    method: "POST",
    path: `${ONE}/verify`,
    tag,
    summary: "Verify a domain now",
    description:
      "Looks the TXT record up and answers the domain's state: `verified`, or as it was with `last_error` saying why (no record, a wrong value, no DNS answer). A domain another organization has verified: 409 `domain_taken`.",
    access: write,
    params: domainParams,
    response: domainSchema,
    errors: ["not_found", "domain_taken"],
    handler: ({ params, ...ctx }) => verifyDomain(ctx, params.org_id, params.domain_id),
  }),
  delete: defineOperation({
    id: "deleteDomain",
    method: "DELETE",
    path: ONE,
    tag,
    summary: "Remove a domain",
    description: "Nobody joins through it any more; members who joined through it stay.",
    access: write,
    params: domainParams,
    response: domainSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => deleteDomain(ctx, params.org_id, params.domain_id),
  }),
};
