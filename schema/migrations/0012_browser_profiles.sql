CREATE TABLE "browser_profile_domains" (
	"profile_id" text NOT NULL,
	"domain" text NOT NULL,
	"state_ciphertext" text NOT NULL,
	"cookie_count" integer NOT NULL,
	"local_storage_origin_count" integer NOT NULL,
	"last_accessed_at" timestamp with time zone NOT NULL,
	"last_written_at" timestamp with time zone NOT NULL,
	"last_written_by_run_id" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "browser_profile_domains_profile_id_domain_pk" PRIMARY KEY("profile_id","domain"),
	CONSTRAINT "browser_profile_domains_counts_check" CHECK ("browser_profile_domains"."cookie_count" >= 0 and "browser_profile_domains"."local_storage_origin_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "browser_profiles" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"proxy_country_code" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"fingerprint_seed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "browser_profile_domains" ADD CONSTRAINT "browser_profile_domains_profile_id_browser_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."browser_profiles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "browser_profiles" ADD CONSTRAINT "browser_profiles_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "browser_profiles_account_created_idx" ON "browser_profiles" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "browser_profiles_one_default_idx" ON "browser_profiles" USING btree ("account_id") WHERE "browser_profiles"."is_default";