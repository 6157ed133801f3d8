import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";

/** {search_url}: GET / and GET /usage (spec 4.7). Not built yet: every path answers 404. */
export function searchSurface(): Surface {
  return { name: "search", title: "search API", prefix: "/search", app: createRouter(), available: false };
}
