CREATE TABLE "search_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_documents" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"site_name" text DEFAULT '' NOT NULL,
	"host" text NOT NULL,
	"type" text DEFAULT 'web' NOT NULL,
	"language" text DEFAULT 'en' NOT NULL,
	"published_at" date,
	"publisher" text,
	"authors" text[],
	"venue" text,
	"year" integer,
	"pdf_url" text,
	"cited_by_count" integer,
	"length" integer DEFAULT 0 NOT NULL,
	"content_hash" text DEFAULT '' NOT NULL,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_documents_url_unique" UNIQUE("url"),
	CONSTRAINT "search_documents_type_check" CHECK ("search_documents"."type" in ('web', 'news', 'research_paper'))
);
--> statement-breakpoint
CREATE TABLE "search_postings" (
	"term" text NOT NULL,
	"doc_id" bigint NOT NULL,
	"tf" real NOT NULL,
	"doc_length" integer NOT NULL,
	"impact" real NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_stats" (
	"id" integer PRIMARY KEY NOT NULL,
	"doc_count" bigint DEFAULT 0 NOT NULL,
	"total_length" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_terms" (
	"term" text PRIMARY KEY NOT NULL,
	"df" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_usage" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"request_id" text NOT NULL,
	"query" text NOT NULL,
	"status_code" integer NOT NULL,
	"result_count" integer DEFAULT 0 NOT NULL,
	"results" jsonb NOT NULL,
	"cached" boolean,
	"response_size_bytes" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "search_usage" ADD CONSTRAINT "search_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_cache_expires_idx" ON "search_cache" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "search_documents_host_idx" ON "search_documents" USING btree ("host");--> statement-breakpoint
CREATE INDEX "search_documents_type_idx" ON "search_documents" USING btree ("type","language");--> statement-breakpoint
CREATE INDEX "search_postings_term_impact_idx" ON "search_postings" USING btree ("term","impact" DESC NULLS LAST,"doc_id","tf","doc_length");--> statement-breakpoint
CREATE INDEX "search_postings_doc_idx" ON "search_postings" USING btree ("doc_id");--> statement-breakpoint
CREATE INDEX "search_usage_account_idx" ON "search_usage" USING btree ("account_id","created_at");