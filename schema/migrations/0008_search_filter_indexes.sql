DROP INDEX "search_documents_type_idx";--> statement-breakpoint
CREATE INDEX "search_documents_rhost_idx" ON "search_documents" USING btree (reverse("host") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "search_documents_published_idx" ON "search_documents" USING btree ("published_at","type","id");--> statement-breakpoint
CREATE INDEX "search_documents_year_idx" ON "search_documents" USING btree ("year","type","id");--> statement-breakpoint
CREATE INDEX "search_documents_type_idx" ON "search_documents" USING btree ("type","language","id");