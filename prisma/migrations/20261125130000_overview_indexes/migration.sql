-- The overview's figures, each read from one index alone (an index-only scan).

-- Organizations by tier: the ones not deleted, in tier order, counted without reading the table.
CREATE INDEX "organizations_is_deleted_subscription_tier_idx" ON "organizations"("is_deleted", "subscription_tier");

-- Usable keys (active, not deleted) by expiry, now with those that never expire (NULL, sorted last):
-- the overview counts the active keys and the keys expiring this week from it, and the list's
-- expiring_within_days filter reads its range as before.
DROP INDEX "api_keys_expires_at_idx";
CREATE INDEX "api_keys_expires_at_idx" ON "api_keys"("expires_at") WHERE "is_active" AND NOT "is_deleted";

-- Refusals by hour, now carrying the key and the count: the overview sums this week's per key
-- without reading the table. The count being in the index, the bookkeeping's update of a refusal
-- row is never a heap-only one: at most one a key, hour and outcome per flush, a cost it can bear.
DROP INDEX "api_key_usage_refusals_idx";
CREATE INDEX "api_key_usage_refusals_idx" ON "api_key_usage"("hour") INCLUDE ("key_id", "count") WHERE "outcome" IN ('401', '403', '429');
