import { lambdaHandler } from "../edge/edge-root.ts";
import { buildFetchSurface } from "../edge/fetch-surface.ts";

/** The Lambda handler of {fetch_url} (see functions/edge/fetch-surface.ts); bundled by `npm run build`. */
export const handler = lambdaHandler(buildFetchSurface);
