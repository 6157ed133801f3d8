ALTER TABLE "search_documents" DROP CONSTRAINT "search_documents_url_unique";--> statement-breakpoint
DROP INDEX "search_postings_term_impact_idx";--> statement-breakpoint
ALTER TABLE "search_documents" ADD COLUMN "owner_account_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "search_postings" ADD COLUMN "owner_account_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Backfill (hand-written; the DDL around it is drizzle-kit's). Until now every fetched page was
-- global. Documents record no source, so a document counts as fetched when a completed fetch
-- usage row names its URL (the index keys the final URL without fragment or userinfo; the
-- requested URL is matched too, which can only make more documents private). Exactly one account
-- fetched it: it becomes that account's. Several did: whose copy is stored is unknown, so it is
-- deleted. No usage row: `osprey index import` and `osprey index add` write none, so it stays
-- global; an imported URL that some account also fetched was overwritten by that fetch and is
-- handled as fetched (re-import it to make it global again).
UPDATE "search_documents" d SET "owner_account_id" = CASE WHEN f."accounts" = 1 THEN f."account_id" ELSE '#ambiguous' END
FROM (
  SELECT d2."id", min(u."account_id") AS "account_id", count(DISTINCT u."account_id") AS "accounts"
  FROM "search_documents" d2
  JOIN (
    SELECT regexp_replace(regexp_replace("final_url", '#.*$', ''), '^([a-z][a-z0-9+.-]*://)[^/?#@]*@', '\1', 'i') AS "url", "account_id"
    FROM "fetch_usage" WHERE "status" = 'completed'
    UNION
    SELECT regexp_replace(regexp_replace("url", '#.*$', ''), '^([a-z][a-z0-9+.-]*://)[^/?#@]*@', '\1', 'i'), "account_id"
    FROM "fetch_usage" WHERE "status" = 'completed'
  ) u ON u."url" = d2."url"
  GROUP BY d2."id"
) f
WHERE f."id" = d."id";--> statement-breakpoint
WITH "gone" AS (
  DELETE FROM "search_postings" p USING "search_documents" d
  WHERE d."owner_account_id" = '#ambiguous' AND p."doc_id" = d."id" RETURNING p."term"
), "c" AS (SELECT "term", count(*)::int AS "n" FROM "gone" GROUP BY "term")
UPDATE "search_terms" t SET "df" = t."df" - c."n" FROM "c" WHERE t."term" = c."term";--> statement-breakpoint
DELETE FROM "search_terms" WHERE "df" <= 0;--> statement-breakpoint
DELETE FROM "search_documents" WHERE "owner_account_id" = '#ambiguous';--> statement-breakpoint
UPDATE "search_stats" SET "doc_count" = (SELECT count(*) FROM "search_documents"),
  "total_length" = (SELECT coalesce(sum("length"), 0) FROM "search_documents") WHERE "id" = 1;--> statement-breakpoint
UPDATE "search_postings" p SET "owner_account_id" = d."owner_account_id"
FROM "search_documents" d WHERE d."id" = p."doc_id" AND d."owner_account_id" <> '';--> statement-breakpoint
-- Cached answers were computed over every account's pages; the cache key now names the account.
DELETE FROM "search_cache";--> statement-breakpoint
CREATE UNIQUE INDEX "search_documents_owner_url_idx" ON "search_documents" USING btree ("owner_account_id","url");--> statement-breakpoint
CREATE INDEX "search_postings_term_owner_impact_idx" ON "search_postings" USING btree ("term","owner_account_id","impact" DESC NULLS LAST,"doc_id","tf","doc_length");