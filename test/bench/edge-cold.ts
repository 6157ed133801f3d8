/**
 * One cold start, in the fresh Node process the edge bench spawns: import a bundled handler, then
 * answer its first request(s) (function-URL events, as Lambda would send). Prints one JSON line.
 * argv: <bundle file> [api key]. The environment is the function's (DATABASE_URL, …).
 */
import { functionUrlEvent, installLambdaRuntime, invoke } from "../helpers/lambda.ts";

installLambdaRuntime();
const [file, key] = process.argv.slice(2);
const t0 = performance.now();
const mod = (await import(file ?? "")) as { handler: unknown };
const imported = performance.now();
const health = await invoke(mod.handler, functionUrlEvent("GET", "/healthz"));
const firstRequest = performance.now();
// What must answer with no database and no key: the document and a missing key's 401.
const protectedPath = file?.endsWith("agent.mjs") ? "/v1/account" : "/usage";
const openapi = (await invoke(mod.handler, functionUrlEvent("GET", "/openapi.json"))).status;
const anonymous = (await invoke(mod.handler, functionUrlEvent("GET", protectedPath))).status;
let authed: { ms: number; status: number } | null = null;
if (key) {
  const t = performance.now();
  const res = await invoke(mod.handler, functionUrlEvent("GET", protectedPath, { headers: { "x-api-key": key } }));
  authed = { ms: performance.now() - t, status: res.status };
}
process.stdout.write(
  `${JSON.stringify({ importMs: imported - t0, firstMs: firstRequest - imported, status: health.status, openapi, anonymous, authed, processMs: performance.now() })}\n`,
);
process.exit(0);
