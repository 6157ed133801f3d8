import { createServer, type IncomingMessage } from "node:http";
import { PGlite } from "@electric-sql/pglite";
import { handle } from "hono/aws-lambda";
import { wrapPglite } from "../../functions/db/pglite-database.ts";
import { createFrontDoor } from "../../functions/edge/front-door.ts";
import { BYPASS_HEADER, frontDoorApp } from "../../functions/edge/front-door-app.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { createServices } from "../../functions/services/index.ts";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const BYPASS = "bench-bypass-0123456789abcdef";

/**
 * The session front door's warm-path overhead (functions/edge/front-door.ts): `POST /` as an ALB
 * event through the front door (key check on PGlite, one probe, the forward, the relay) beside the
 * same request sent straight to the local origin (the anchor: what the load balancer would do
 * without the front door), and the door alone (probe + forward, no key check), interleaved one of
 * each per iteration in the same run. The origin is a local HTTP server that plays the load
 * balancer and a running container (GET /healthz 200, POST / 201). On AWS the hop also includes the
 * load balancer's Lambda invoke and two extra balancer round trips, which this cannot measure.
 */
export async function frontDoorBench(): Promise<void> {
  const db = wrapPglite(await PGlite.create(), "bench");
  await db.migrate();
  const services = createServices({ db: db.db, clock: systemClock, ids: defaultIds });
  const key = (await ensureFirstAccount(services))?.key ?? "";
  const read = (req: IncomingMessage) =>
    new Promise<string>((r) => {
      let b = "";
      req.on("data", (c) => {
        b += c;
      });
      req.on("end", () => r(b));
    });
  const origin = createServer(async (req, res) => {
    const body = await read(req);
    if (req.method === "GET" && req.url === "/healthz")
      return res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ id: "sess_bench", status: "active", n: body.length }));
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  const door = createFrontDoor({
    origin: url,
    bypass: { header: BYPASS_HEADER, value: BYPASS },
    healthPath: "/healthz",
    waitMs: 45_000,
    probeEveryMs: 2000,
    probeTimeoutMs: 2000,
    retryAfterSeconds: 5,
    logger: silentLogger,
    nudge: async () => {
      throw new Error("the warm path must not nudge");
    },
  });
  const lambda = handle(frontDoorApp({ apiKeys: services.apiKeys, ids: defaultIds, logger: silentLogger, door }));
  const body = JSON.stringify({ timeout_minutes: 5 });
  const headers = { "content-type": "application/json", "x-api-key": key };
  const event = {
    requestContext: { elb: { targetGroupArn: "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/bench/1" } },
    httpMethod: "POST",
    path: "/",
    queryStringParameters: {},
    headers: { host: "browser.example", ...headers },
    body,
    isBase64Encoded: false,
  };
  const cases: Array<[string, () => Promise<number>]> = [
    [
      "direct to the origin (anchor)",
      async () => (await (await fetch(`${url}/`, { method: "POST", headers, body })).arrayBuffer()).byteLength,
    ],
    [
      "front door: key + probe + forward (ALB event)",
      async () => ((await lambda(event as never, {} as never)) as { body: string }).body.length,
    ],
    [
      "front door: probe + forward only",
      async () => (await (await door.serve(new Request(`${url}/`, { method: "POST", headers, body }))).arrayBuffer()).byteLength,
    ],
  ];
  const n = 500;
  const times = cases.map(() => [] as number[]);
  for (let i = 0; i < 50; i++) for (const [, run] of cases) await run();
  for (let i = 0; i < n; i++)
    for (const [j, [, run]] of cases.entries()) {
      const t = performance.now();
      await run();
      times[j]?.push(performance.now() - t);
    }
  const p50s: number[] = [];
  process.stdout.write(`front door warm path, ${n} interleaved iterations each (loopback origin, PGlite keys)\n`);
  for (const [j, [name]] of cases.entries()) {
    const sorted = [...(times[j] ?? [])].sort((a, b) => a - b);
    const p50 = percentile(sorted, 0.5);
    p50s.push(p50);
    const ratio =
      j === 0 ? "" : `  (${(p50 / (p50s[0] || 1)).toFixed(2)}x the anchor's p50, +${(p50 - (p50s[0] ?? 0)).toFixed(2)} ms)`;
    process.stdout.write(
      `  ${name.padEnd(48)} p50 ${p50.toFixed(2)} ms  p95 ${percentile(sorted, 0.95).toFixed(2)} ms${ratio}\n`,
    );
  }
  origin.close();
  await db.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await frontDoorBench();
