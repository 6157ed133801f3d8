import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";

/** {fetch_url}: POST / and GET /usage (spec 4.6). Not built yet: every path answers 404. */
export function fetchSurface(): Surface {
  return { name: "fetch", title: "fetch API", prefix: "/fetch", app: createRouter(), available: false };
}
