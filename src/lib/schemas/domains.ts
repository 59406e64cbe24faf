import { z } from "zod";
import { DOMAIN_STATUSES } from "@/lib/domains";
import { EXAMPLE_TIMESTAMPS, id, LENGTH, listOf, moment, pageQuery, text, timestamps } from "./common";

// The domain as typed; the server normalizes it (lower case, punycode, no trailing dot) and refuses
// what is no host name.
export const createDomainInput = z
  .strictObject({ domain: text(LENGTH.STANDARD).trim().min(1) })
  .meta({ examples: [{ domain: "acme.com" }] });
export type CreateDomainInput = z.output<typeof createDomainInput>;

export const listDomainsQuery = pageQuery.extend({
  status: z.enum(DOMAIN_STATUSES).optional().describe("Only claims in this state."),
});
export type ListDomainsQuery = z.output<typeof listDomainsQuery>;

export const domainParams = z.strictObject({ org_id: id, domain_id: id });

export const domainSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    domain: text(),
    status: z.enum(DOMAIN_STATUSES),
    txt_name: text(LENGTH.LONG),
    txt_value: text(LENGTH.STANDARD),
    verified_at: moment.nullable(),
    last_checked_at: moment.nullable(),
    /** Since when a verified domain's record has not been found (it turns failed after 7 days). */
    missing_since: moment.nullable(),
    /** Why the last check did not find the record, in words. */
    last_error: text(LENGTH.LONG).nullable(),
    ...timestamps,
  })
  .meta({
    examples: [
      {
        id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        domain: "acme.com",
        status: "pending",
        txt_name: "_svc-challenge.acme.com",
        txt_value: "svc-domain-verification=3kTq0vWb9yXcN1dZ8rLp5sHf2gJm7aQe",
        verified_at: null,
        last_checked_at: null,
        missing_since: null,
        last_error: null,
        ...EXAMPLE_TIMESTAMPS,
      },
    ],
  });
/** A domain as the wire carries it (moments as ISO strings). */
export type Domain = z.input<typeof domainSchema>;

export const domainListSchema = listOf(domainSchema);
