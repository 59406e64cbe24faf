import "server-only";
import { randomBytes } from "node:crypto";
import { domainToASCII } from "node:url";
import publicEmailDomains from "email-providers/common.json" with { type: "json" };
import type { Prisma } from "@/generated/prisma/client";
import { DOMAIN_VERIFIED_ACTION } from "@/lib/audit-actions";
import { MAX_ORG_DOMAINS, txtName, txtValue } from "@/lib/domains";
import type { z } from "zod";
import type { CreateDomainInput, domainSchema, ListDomainsQuery } from "@/lib/schemas/domains";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { NO_REQUEST, recordChange } from "@/server/services/audit/record";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { lookupTxt, type TxtLookup } from "./dns";

// An organization's domains: claimed (pending), proven by a TXT record (verified), or lost when the
// record stayed away (failed, see recheck.ts). Access is decided before these run
// (svc:org:domains:*); a claim is looked up within its organization only.

type Row = Prisma.OrganizationDomainGetPayload<object>;
type Domain = z.output<typeof domainSchema>;

const PUBLIC_EMAIL_DOMAINS: ReadonlySet<string> = new Set(publicEmailDomains as string[]);

function toDomain(row: Row): Domain {
  return {
    id: row.id,
    org_id: row.org_id,
    domain: row.domain,
    status: row.status as Domain["status"],
    txt_name: txtName(row.domain),
    txt_value: txtValue(row.token),
    verified_at: row.verified_at,
    last_checked_at: row.last_checked_at,
    missing_since: row.missing_since,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The domain as stored: lower case, ASCII (an internationalized name in punycode), no trailing dot.
 * Null when it is no public host name (one label, an IP address, a bad character, too long).
 */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, "");
  if (!trimmed || /[\s/:@?#\\[\]]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  // A top-level label of digits only is an IPv4 address, not a domain.
  if (/^\d+$/.test(labels.at(-1)!)) return null;
  return ascii;
}

/** Whether the domain, or one it is under, is a public email provider's (anyone may have an address there). */
function isPublicEmailDomain(domain: string): boolean {
  const labels = domain.split(".");
  return labels.some((_, i) => i < labels.length - 1 && PUBLIC_EMAIL_DOMAINS.has(labels.slice(i).join(".")));
}

async function requireDomain(db: DataLayer, orgId: string, domainId: string): Promise<Row> {
  const row = await db.organizationDomain.findFirst({ where: { id: domainId, org_id: orgId } });
  if (!row) throw notFound("domain");
  return row;
}

export async function addDomain(ctx: Context, orgId: string, input: CreateDomainInput): Promise<Domain> {
  const domain = normalizeDomain(input.domain);
  if (!domain) throw validationFailed([{ path: "domain", message: "must be a domain name such as example.com" }]);
  if (isPublicEmailDomain(domain))
    throw new DomainError("public_email_domain", `${domain} is a public email provider's domain.`, {
      errors: [{ path: "domain", message: "is a public email provider's domain" }],
    });
  const { db } = ctx;
  await requireOrganization(db, orgId);
  if ((await db.organizationDomain.count({ where: { org_id: orgId } })) >= MAX_ORG_DOMAINS)
    throw new DomainError("quota_exceeded", `An organization may have at most ${MAX_ORG_DOMAINS} domains.`);
  // 24 random bytes: 32 characters of base64url, unguessable so that nobody can prepare the record ahead.
  const row = await db.organizationDomain.create({
    data: { org_id: orgId, domain, token: randomBytes(24).toString("base64url") },
  });
  return toDomain(row);
}

export async function listDomains(ctx: Context, orgId: string, query: ListDomainsQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const status = query.status ? { status: query.status } : {};
  return paginate(
    query,
    newestFirst,
    (w) =>
      db.organizationDomain.findMany({
        where: { org_id: orgId, ...status, ...w.after },
        orderBy: w.orderBy,
        take: w.take,
      }),
    toDomain,
  );
}

export async function getDomain(ctx: Context, orgId: string, domainId: string): Promise<Domain> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return toDomain(await requireDomain(db, orgId, domainId));
}

export async function deleteDomain(ctx: Context, orgId: string, domainId: string): Promise<Domain> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const existing = await requireDomain(db, orgId, domainId);
  return toDomain(await db.organizationDomain.update({ where: { id: existing.id }, data: { is_deleted: true } }));
}

/** What a lookup says of a claim: found, or why not (in words for the console and the API). */
export function judge(
  row: Pick<Row, "domain" | "token">,
  lookup: TxtLookup,
): { found: boolean; reason: string | null; definite: boolean } {
  const name = txtName(row.domain);
  if (lookup.outcome === "unknown") return { found: false, reason: lookup.reason, definite: false };
  if (lookup.outcome === "absent" || lookup.values.length === 0)
    return { found: false, reason: `No TXT record at ${name}.`, definite: true };
  if (lookup.values.some((v) => v.trim() === txtValue(row.token))) return { found: true, reason: null, definite: true };
  return {
    found: false,
    reason: `The TXT record at ${name} does not hold the expected value (${txtValue(row.token)}).`,
    definite: true,
  };
}

/**
 * Looks the TXT record up and answers the claim's new state: verified when the record holds the
 * token (unless another organization verified the domain first: 409 `domain_taken`), else as it was,
 * with `last_error` saying why. Two organizations verifying at once meet at the partial unique
 * index on verified domains: the second's commit is refused the same way.
 */
export async function verifyDomain(ctx: Context, orgId: string, domainId: string): Promise<Domain> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const existing = await requireDomain(db, orgId, domainId);
  const verdict = judge(existing, await lookupTxt(txtName(existing.domain)));
  const now = new Date();
  if (!verdict.found) {
    const row = await db.organizationDomain.update({
      where: { id: existing.id },
      data: {
        last_checked_at: now,
        last_error: verdict.reason,
        // A verified domain whose record went away starts its grace period (the daily re-check ends it).
        ...(existing.status === "verified" && verdict.definite && !existing.missing_since
          ? { missing_since: now }
          : {}),
      },
    });
    return toDomain(row);
  }
  const holder = await db.organizationDomain.findFirst({
    where: { domain: existing.domain, status: "verified", org_id: { not: orgId } },
    select: { id: true },
  });
  if (holder) throw new DomainError("domain_taken", `Another organization has verified ${existing.domain}.`);
  const newlyVerified = existing.status !== "verified";
  const row = await db.organizationDomain.update({
    where: { id: existing.id },
    data: {
      status: "verified",
      verified_at: newlyVerified ? now : existing.verified_at,
      last_checked_at: now,
      missing_since: null,
      last_error: null,
    },
  });
  if (newlyVerified)
    await recordChange(ctx, {
      actor: ctx.actor,
      action: DOMAIN_VERIFIED_ACTION,
      outcome: "success",
      target: { type: "domain", id: row.id },
      orgId,
      changes: { status: { old: existing.status, new: "verified" } },
      request: NO_REQUEST,
      eventType: "domain.verified",
    });
  return toDomain(row);
}
