import { z } from "@hono/zod-openapi";

/**
 * The one pagination helper of every usage listing (spec 4.5, 4.6, 4.7, 8): `limit` 1–1000
 * (default 100), `page` ≥ 1 (default 1), answered as {items,total,limit,page,total_pages,has_more}.
 */

export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_PAGE_LIMIT = 100;

const intParam = (name: string, min: number, max: number | null, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be an integer`)
    .transform(Number)
    .pipe(max === null ? z.number().int().min(min) : z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);

export const PaginationQuery = z.object({
  limit: intParam("limit", 1, MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT).openapi({
    param: { name: "limit", in: "query", description: "Items per page, 1 to 1000." },
    type: "integer",
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: DEFAULT_PAGE_LIMIT,
    example: 100,
  }),
  page: intParam("page", 1, null, 1).openapi({
    param: { name: "page", in: "query", description: "Page number, starting at 1." },
    type: "integer",
    minimum: 1,
    default: 1,
    example: 1,
  }),
});

export interface PageRequest {
  limit: number;
  page: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  page: number;
  total_pages: number;
  has_more: boolean;
}

/** Row offset of a page request, for the repository's query. */
export const pageOffset = (p: PageRequest): number => (p.page - 1) * p.limit;

export function toPage<T>(items: T[], total: number, p: PageRequest): Page<T> {
  const totalPages = Math.ceil(total / p.limit);
  return { items, total, limit: p.limit, page: p.page, total_pages: totalPages, has_more: p.page < totalPages };
}

/** The response schema of a paginated listing of `item`. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int().min(0),
      limit: z.number().int().min(1).max(MAX_PAGE_LIMIT),
      page: z.number().int().min(1),
      total_pages: z.number().int().min(0),
      has_more: z.boolean(),
    })
    .openapi(name);
}
