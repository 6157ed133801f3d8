DROP INDEX "search_documents_type_idx";--> statement-breakpoint
CREATE INDEX "search_documents_type_idx" ON "search_documents" USING btree ("type","language","id","host");