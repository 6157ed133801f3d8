ALTER TABLE "fetch_cache" ADD COLUMN "body_key" text NOT NULL;--> statement-breakpoint
ALTER TABLE "fetch_cache" ADD COLUMN "body_size" integer NOT NULL;--> statement-breakpoint
CREATE INDEX "fetch_cache_body_key_idx" ON "fetch_cache" USING btree ("body_key");