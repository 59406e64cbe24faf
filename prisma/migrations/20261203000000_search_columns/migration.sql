-- The `q` search reads one stored value per row instead of three columns through functions.
--
-- A search with many matches reads every one of them before the newest page is known, and each row
-- cost six replace() calls per column (the index's recheck) and three case-insensitive matches (the
-- test as typed). Each searched table now holds, for every row, its searched columns lower-cased
-- and joined into one value, each column after the unit separator (U+001F, a control character no
-- one types, so that a search cannot span two columns), as typed (`search_typed`) and as
-- svc_search_text writes it (`search_written`). One trigram index on the written value replaces the
-- three on the columns: a search is one index lookup, its recheck and its test as typed each a LIKE
-- on a stored value. PostgreSQL keeps both values up to date on every write of the columns. Adding
-- them rewrites the tables: seconds for 200,000 rows, writes to them waiting meanwhile.
ALTER TABLE "organizations"
  ADD COLUMN "search_typed" text GENERATED ALWAYS AS (lower(E'\x1f' || coalesce("name", '') || E'\x1f' || coalesce("display_name", '') || E'\x1f' || coalesce("domain", ''))) STORED,
  ADD COLUMN "search_written" text GENERATED ALWAYS AS (svc_search_text(lower(E'\x1f' || coalesce("name", '') || E'\x1f' || coalesce("display_name", '') || E'\x1f' || coalesce("domain", '')))) STORED;
ALTER TABLE "users"
  ADD COLUMN "search_typed" text GENERATED ALWAYS AS (lower(E'\x1f' || coalesce("username", '') || E'\x1f' || coalesce("display_name", '') || E'\x1f' || coalesce("email", ''))) STORED,
  ADD COLUMN "search_written" text GENERATED ALWAYS AS (svc_search_text(lower(E'\x1f' || coalesce("username", '') || E'\x1f' || coalesce("display_name", '') || E'\x1f' || coalesce("email", '')))) STORED;

DROP INDEX "organizations_name_trgm_idx";
DROP INDEX "organizations_display_name_trgm_idx";
DROP INDEX "organizations_domain_trgm_idx";
DROP INDEX "users_username_trgm_idx";
DROP INDEX "users_display_name_trgm_idx";
DROP INDEX "users_email_trgm_idx";
CREATE INDEX "organizations_search_trgm_idx" ON "organizations" USING gin ("search_written" gin_trgm_ops);
CREATE INDEX "users_search_trgm_idx" ON "users" USING gin ("search_written" gin_trgm_ops);
