-- Usage budgets on API keys (credits with an optional daily or monthly refill), key metadata, and
-- the key a rolled key spends the credits of. credits_remaining null: the key is unlimited.
ALTER TABLE "api_keys"
  ADD COLUMN "credits_remaining" BIGINT,
  ADD COLUMN "credits_refill_amount" BIGINT,
  ADD COLUMN "credits_refill_interval" VARCHAR(7),
  ADD COLUMN "credits_refill_day" SMALLINT,
  ADD COLUMN "credits_low_threshold" BIGINT,
  ADD COLUMN "credits_refilled_at" TIMESTAMPTZ(6),
  ADD COLUMN "credits_version" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "credits_low_sent" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "credits_exhausted_sent" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "credits_key_id" UUID,
  ADD COLUMN "meta" JSONB NOT NULL DEFAULT '{}';

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_credits_check" CHECK (
  ("credits_remaining" IS NULL OR "credits_remaining" BETWEEN 0 AND 1000000000000)
  AND ("credits_low_threshold" IS NULL OR "credits_low_threshold" BETWEEN 0 AND 1000000000000)
  AND (
    ("credits_refill_amount" IS NULL AND "credits_refill_interval" IS NULL AND "credits_refill_day" IS NULL)
    OR ("credits_remaining" IS NOT NULL AND "credits_refill_amount" BETWEEN 1 AND 1000000000000
        AND ("credits_refill_interval" = 'daily' AND "credits_refill_day" IS NULL
             OR "credits_refill_interval" = 'monthly' AND "credits_refill_day" BETWEEN 1 AND 31))
  )
);
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_meta_check" CHECK (jsonb_typeof("meta") = 'object');
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_credits_key_id_fkey" FOREIGN KEY ("credits_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "api_keys_credits_key_id_idx" ON "api_keys"("credits_key_id") WHERE "credits_key_id" IS NOT NULL;

-- The refill moment a balance at `at` is from (00:00 UTC): that day for a daily refill; for a
-- monthly one the latest `day` of a month not after it, a short month's last day standing in.
-- Refills are applied by the database's clock, so replicas whose clocks differ agree on them; it
-- is src/lib/credits.ts's refillPeriodStart, and a test holds the two equal.
CREATE FUNCTION svc_credits_period_start(refill_interval text, refill_day integer, at timestamptz)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  WITH utc AS (SELECT date_trunc('day', at AT TIME ZONE 'UTC') AS today),
  due AS (
    SELECT m + (LEAST(refill_day, extract(day FROM m + interval '1 month - 1 day')::integer) - 1) * interval '1 day' AS moment
    FROM utc, LATERAL (VALUES (date_trunc('month', today)), (date_trunc('month', today) - interval '1 month')) AS months(m)
  )
  SELECT (CASE refill_interval
    WHEN 'daily' THEN (SELECT today FROM utc)
    WHEN 'monthly' THEN (SELECT max(moment) FROM due, utc WHERE moment <= today)
  END) AT TIME ZONE 'UTC'
$$;
