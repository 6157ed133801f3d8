CREATE TABLE "vault_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"name" text NOT NULL,
	"url" text,
	"token_ciphertext" text,
	"last_synced_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vault_connections_provider_check" CHECK ("vault_connections"."provider" in ('osprey', 'onepassword', 'bitwarden'))
);
--> statement-breakpoint
CREATE TABLE "vault_items" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"vault_name" text NOT NULL,
	"item_id" text NOT NULL,
	"label" text NOT NULL,
	"domains" text[] DEFAULT '{}'::text[] NOT NULL,
	"field_metadata" jsonb NOT NULL,
	"has_totp" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret_ciphertext" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vault_connections" ADD CONSTRAINT "vault_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vault_items" ADD CONSTRAINT "vault_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vault_items" ADD CONSTRAINT "vault_items_connection_id_vault_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."vault_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vault_connections_account_idx" ON "vault_connections" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "vault_items_ref_idx" ON "vault_items" USING btree ("connection_id","vault_name","item_id");--> statement-breakpoint
CREATE INDEX "vault_items_account_idx" ON "vault_items" USING btree ("account_id");