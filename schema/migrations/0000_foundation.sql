CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"plan" text NOT NULL,
	"entitlements_granted" text[] DEFAULT '{}'::text[] NOT NULL,
	"entitlements_revoked" text[] DEFAULT '{}'::text[] NOT NULL,
	"credit_balance" bigint DEFAULT 0 NOT NULL,
	"search_rpm" integer,
	"fetch_upm" integer,
	"max_pending_runs" integer,
	"suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_plan_check" CHECK ("accounts"."plan" in ('free', 'payg', 'starter', 'pro')),
	CONSTRAINT "accounts_search_rpm_check" CHECK ("accounts"."search_rpm" is null or "accounts"."search_rpm" > 0),
	CONSTRAINT "accounts_fetch_upm_check" CHECK ("accounts"."fetch_upm" is null or "accounts"."fetch_upm" > 0),
	CONSTRAINT "accounts_max_pending_runs_check" CHECK ("accounts"."max_pending_runs" is null or "accounts"."max_pending_runs" > 0)
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"name" text,
	"scope" text DEFAULT 'api' NOT NULL,
	"sub_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_scope_check" CHECK ("api_keys"."scope" in ('api', 'mcp'))
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key_id" text NOT NULL,
	"bucket" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_key_id_bucket_window_start_pk" PRIMARY KEY("key_id","bucket","window_start")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_id_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "api_keys_prefix_idx" ON "api_keys" USING btree ("prefix");