-- Bodies move to the blob store: the cached rows cannot be kept without them (a cache refills).
DELETE FROM "fetch_cache";--> statement-breakpoint
ALTER TABLE "fetch_cache" DROP COLUMN "body";