import { buildBrowserSurface } from "../edge/browser-surface.ts";
import { lambdaHandler } from "../edge/edge-root.ts";

/** The Lambda handler of {browser_url} (see functions/edge/browser-surface.ts); bundled by `npm run build`. */
export const handler = lambdaHandler(buildBrowserSurface);
