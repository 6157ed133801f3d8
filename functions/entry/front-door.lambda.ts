import { handle } from "hono/aws-lambda";
import { processEnvironment } from "../config/config.ts";
import { frontDoorEdgeApp } from "../edge/front-door-app.ts";

/**
 * The browser sessions' front door (functions/edge/front-door.ts): a Lambda target of the load
 * balancer, which sends it `POST {browser_url}` only. ALB events carry whole bodies both ways (no
 * streaming: a session's creation answers one small JSON), so this is hono/aws-lambda's `handle`,
 * which reads ALB events, not `streamHandle`. Bundled by `npm run build`.
 */
export const handler = handle(frontDoorEdgeApp(processEnvironment()).app);
