import { lambdaHandler } from "../edge/edge-root.ts";
import { buildSearchSurface } from "../edge/search-surface.ts";

/** The Lambda handler of {search_url} (see functions/edge/search-surface.ts); bundled by `npm run build`. */
export const handler = lambdaHandler(buildSearchSurface);
