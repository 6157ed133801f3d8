/**
 * The kinds of page search knows (spec 4.7 `domain_type`): the wire enum of a search request, the
 * type the extractor gives a fetched page for the local index, and the values the
 * search_documents.type column may hold (its check constraint, schema/tables/search.ts).
 */
export const DOMAIN_TYPES = ["web", "news", "research_paper"] as const;
export type DomainType = (typeof DOMAIN_TYPES)[number];
