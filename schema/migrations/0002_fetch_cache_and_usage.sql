CREATE TABLE "fetch_cache" (
	"url_key" text PRIMARY KEY NOT NULL,
	"final_url" text NOT NULL,
	"status" integer NOT NULL,
	"headers" jsonb NOT NULL,
	"body" "bytea" NOT NULL,
	"rendered" boolean DEFAULT false NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	"origin_max_age" integer
);
--> statement-breakpoint
CREATE TABLE "fetch_usage" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"request_id" text,
	"url" text NOT NULL,
	"final_url" text NOT NULL,
	"title" text,
	"description" text,
	"language" text,
	"author" text,
	"published_date" text,
	"format" text NOT NULL,
	"status" text NOT NULL,
	"request_origin" text NOT NULL,
	"text_length" integer,
	"links_count" integer DEFAULT 0 NOT NULL,
	"image_links_count" integer DEFAULT 0 NOT NULL,
	"latency_ms" double precision,
	"not_modified" boolean DEFAULT false NOT NULL,
	"etag" text,
	"last_modified" text,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "fetch_usage_status_check" CHECK ("fetch_usage"."status" in ('completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "fetch_usage" ADD CONSTRAINT "fetch_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fetch_cache_fetched_at_idx" ON "fetch_cache" USING btree ("fetched_at");--> statement-breakpoint
CREATE INDEX "fetch_usage_account_created_idx" ON "fetch_usage" USING btree ("account_id","created_at");