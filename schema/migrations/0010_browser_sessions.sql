CREATE TABLE "browser_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"key_scope" text NOT NULL,
	"sub_user_id" text,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"options" jsonb NOT NULL,
	"connect_token" text NOT NULL,
	"host_id" text NOT NULL,
	"host_url" text,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"duration_ms" bigint,
	"proxy_trg_rx_bytes" bigint,
	"proxy_trg_tx_bytes" bigint,
	"end_reason" text,
	"connections" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "browser_sessions_status_check" CHECK ("browser_sessions"."status" in ('created', 'running', 'ended')),
	CONSTRAINT "browser_sessions_mode_check" CHECK ("browser_sessions"."mode" in ('light', 'stealth', 'svc-browser'))
);
--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD CONSTRAINT "browser_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "browser_sessions_account_created_idx" ON "browser_sessions" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "browser_sessions_open_idx" ON "browser_sessions" USING btree ("account_id") WHERE "browser_sessions"."status" <> 'ended';--> statement-breakpoint
CREATE INDEX "browser_sessions_token_idx" ON "browser_sessions" USING btree ("connect_token");