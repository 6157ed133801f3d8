import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";

/** {browser_url}: sessions and their usage (spec 4.5). Not built yet: every path answers 404. */
export function browserSurface(): Surface {
  return { name: "browser", title: "browser session API", prefix: "/browser", app: createRouter(), available: false };
}
