-- Usage budgets on API keys (credits with an optional daily or monthly refill), key metadata, and
-- the key a rolled key spends the credits of. credits_remaining null: the key is unlimited.
ALTER TABLE "api_keys"
  ADD COLUMN "credits_remaining" BIGINT,
  ADD COLUMN "credits_refill_amount" BIGINT,
  ADD COLUMN "credits_refill_interval" VARCHAR(7),
  ADD COLUMN "credits_refill_day" SMALLINT,
  ADD COLUMN "credits_low_at" BIGINT,
  ADD COLUMN "credits_refilled_at" TIMESTAMPTZ(6),
  ADD COLUMN "credits_version" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "credits_low_sent" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "credits_exhausted_sent" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "credits_key_id" UUID,
  ADD COLUMN "meta" JSONB NOT NULL DEFAULT '{}';

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_credits_check" CHECK (
  ("credits_remaining" IS NULL OR "credits_remaining" BETWEEN 0 AND 1000000000000)
  AND ("credits_low_at" IS NULL OR "credits_low_at" BETWEEN 0 AND 1000000000000)
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
