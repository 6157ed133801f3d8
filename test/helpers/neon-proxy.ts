import { startNeonWsProxy } from "../../containers/cloud-dev/neon-ws-proxy.ts";

/**
 * The WebSocket-to-TCP proxy Neon runs in front of Postgres, so the @neondatabase/serverless driver
 * reaches the real Postgres on 127.0.0.1 in tests; the same one `npm run dev:cloud` runs.
 */
export const startNeonProxy = () => startNeonWsProxy();
