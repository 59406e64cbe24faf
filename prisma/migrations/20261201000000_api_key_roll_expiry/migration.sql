-- A rolled key's expiry before its roll shortened it to the grace period. A second roll of the same
-- key (while it is still in its grace) gives its successor this expiry, not the shortened one, so a
-- successor never dies with its predecessor's grace. Null with rolled_at null: never rolled.
ALTER TABLE "api_keys" ADD COLUMN "rolled_at" TIMESTAMPTZ(6);
ALTER TABLE "api_keys" ADD COLUMN "expires_at_before_roll" TIMESTAMPTZ(6);
