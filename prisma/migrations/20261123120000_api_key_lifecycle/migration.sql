-- Key restrictions: the organizations a key may act in (empty: all its owner's) and the networks it
-- may be used from; an empty list restricts nothing. Also the last client address and user agent seen.
ALTER TABLE "api_keys" ADD COLUMN "allowed_org_ids" UUID[] NOT NULL DEFAULT '{}'::uuid[];
ALTER TABLE "api_keys" ADD COLUMN "allowed_cidrs" VARCHAR(49)[] NOT NULL DEFAULT '{}'::character varying[];
ALTER TABLE "api_keys" ADD COLUMN "last_used_ip" VARCHAR(64);
ALTER TABLE "api_keys" ADD COLUMN "last_user_agent" VARCHAR(255);

-- The overview's "keys expiring this week" and the list's expiring_within_days filter.
CREATE INDEX "api_keys_expires_at_idx" ON "api_keys"("expires_at") WHERE "is_active" AND NOT "is_deleted" AND "expires_at" IS NOT NULL;

-- Requests per key, per hour, per outcome (2xx, 4xx, 401, 403, 429, 5xx), counted in memory by each
-- process and added here by the bookkeeping writer.
CREATE TABLE "api_key_usage" (
    "key_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "outcome" VARCHAR(3) NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "api_key_usage_pkey" PRIMARY KEY ("key_id","hour","outcome"),
    CONSTRAINT "api_key_usage_outcome_check" CHECK ("outcome" IN ('2xx', '4xx', '401', '403', '429', '5xx')),
    CONSTRAINT "api_key_usage_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Pruning reads old buckets by hour; the overview's most-refused keys read this week's refusals.
CREATE INDEX "api_key_usage_hour_idx" ON "api_key_usage"("hour");
CREATE INDEX "api_key_usage_refusals_idx" ON "api_key_usage"("hour") WHERE "outcome" IN ('401', '403', '429');

-- The same counts summed over every key, per hour and outcome, written by the same flush: the
-- overview's chart reads at most 7 × 24 × 6 rows whatever the number of keys.
CREATE TABLE "api_key_usage_totals" (
    "hour" TIMESTAMPTZ(6) NOT NULL,
    "outcome" VARCHAR(3) NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "api_key_usage_totals_pkey" PRIMARY KEY ("hour","outcome"),
    CONSTRAINT "api_key_usage_totals_outcome_check" CHECK ("outcome" IN ('2xx', '4xx', '401', '403', '429', '5xx'))
);
