-- A key's own rate limit, {"requests": 1..10000000, "window_seconds": 1..86400}; null: the platform
-- setting api_keys.default_rate_limit applies. CASE fixes the order of the checks, so a value of
-- another shape is refused instead of failing a cast.
ALTER TABLE "api_keys" ADD COLUMN "rate_limit" JSONB;

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_rate_limit_check" CHECK (
  "rate_limit" IS NULL OR CASE
    WHEN jsonb_typeof("rate_limit") = 'object'
      AND ("rate_limit" - 'requests' - 'window_seconds') = '{}'::jsonb
      AND jsonb_typeof("rate_limit"->'requests') = 'number'
      AND jsonb_typeof("rate_limit"->'window_seconds') = 'number'
    THEN ("rate_limit"->>'requests')::numeric BETWEEN 1 AND 10000000
      AND ("rate_limit"->>'requests')::numeric = trunc(("rate_limit"->>'requests')::numeric)
      AND ("rate_limit"->>'window_seconds')::numeric BETWEEN 1 AND 86400
      AND ("rate_limit"->>'window_seconds')::numeric = trunc(("rate_limit"->>'window_seconds')::numeric)
    ELSE false
  END
);
