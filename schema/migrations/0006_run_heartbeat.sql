ALTER TABLE "runs" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "enqueued_at" timestamp with time zone DEFAULT now();