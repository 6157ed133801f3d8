import { CANARY_SECRET, startCanaries } from "../../helpers/netns/canary.ts";
import { UNROUTABLE } from "../../helpers/netns/netns.ts";
import { attempt, report } from "../../helpers/netns/scenario.ts";
import { startStubDns } from "../../helpers/netns/stub-dns.ts";
import { startServer, tempDir } from "../../helpers/process.ts";

/**
 * Issue 15, "one request crashes the server", end to end: `osprey serve` (the real CLI, PGlite in a
 * temporary data dir) in a namespace where v6only.crash.example.com has only an AAAA record and
 * noroute.crash.example.com an A record, both addresses with no route, so connect() fails at once
 * (ENETUNREACH). Every /fetch of them, one at a time, ten in one request, and several requests at
 * once, must come back 200 with per-URL errors while the server keeps serving. The scenario stops
 * at the first request that finds the server gone and reports how it died.
 */

const V6ONLY = "v6only.crash.example.com";
const NOROUTE = "noroute.crash.example.com";
const dns = await startStubDns();
dns.set(V6ONLY, { AAAA: [UNROUTABLE.v6] });
dns.set(NOROUTE, { A: [UNROUTABLE.v4] });
const canaries = await startCanaries([
  { host: "169.254.169.254", port: 80 },
  { host: "169.254.169.254", port: 443 },
  { host: "fd00:ec2::254", port: 80 },
]);

// CRASH_URLS (a JSON list) replaces the list, to show each URL alone against an older tree.
const URLS: string[] = process.env.CRASH_URLS
  ? JSON.parse(process.env.CRASH_URLS)
  : [
      `https://${V6ONLY}/`,
      `http://${V6ONLY}/`,
      `http://${V6ONLY}:8080/page?q=1`,
      `https://${NOROUTE}/`,
      `http://${NOROUTE}/article`,
      `https://${NOROUTE}:8443/`,
      `http://${UNROUTABLE.v4}/`,
      `https://[${UNROUTABLE.v6}]/`,
    ];

const data = tempDir("osprey-netns-crash-");
const booting = performance.now();
const server = await startServer({ PORT: "0", OSPREY_DATA_DIR: data.dir, OSPREY_SHUTDOWN_TIMEOUT_MS: "2000" });
const key = /osk_[A-Za-z0-9]{40}/.exec(server.stdout())?.[0] ?? "";
const bootMs = Math.round(performance.now() - booting);
let exit: { code: number | null; signal: string | null } | null = null;
server.exited.then((e) => {
  exit = e;
});

interface Step {
  step: string;
  /** One entry per request: the HTTP status and the body's errors, or why no answer came. */
  responses: Array<
    | { urls: string[]; status: number; errors: { url: string; error: string }[]; results: number; secret: boolean }
    | { urls: string[]; failed: string; code: string | null }
  >;
  /** GET /v1/account afterwards. */
  account: number | string;
  alive: boolean;
  ms: number;
}
const steps: Step[] = [];

async function post(urls: string[]): Promise<Step["responses"][number]> {
  const r = await attempt(async () => {
    const res = await fetch(`${server.url}/fetch`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ urls }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, text: await res.text() };
  });
  if (!r.ok) return { urls, failed: r.message, code: r.code };
  const body = JSON.parse(r.value.text) as { errors?: { url: string; error: string }[]; results?: unknown[] };
  return {
    urls,
    status: r.value.status,
    errors: (body.errors ?? []).map((e) => ({ url: e.url, error: e.error })),
    results: body.results?.length ?? 0,
    secret: r.value.text.includes(CANARY_SECRET),
  };
}

async function step(name: string, requests: string[][]): Promise<boolean> {
  const started = performance.now();
  const responses = await Promise.all(requests.map(post));
  const account = await attempt(() =>
    fetch(`${server.url}/v1/account`, { headers: { "x-api-key": key }, signal: AbortSignal.timeout(5000) }),
  );
  // A request that found the server gone may return before the exit is seen: wait for one turn.
  await new Promise((resolve) => setImmediate(resolve));
  steps.push({
    step: name,
    responses,
    account: account.ok ? account.value.status : String(account.code),
    alive: exit === null,
    ms: Math.round(performance.now() - started),
  });
  return exit === null && account.ok;
}

const plan: Array<[string, string[][]]> = [
  ...URLS.map((url): [string, string[][]] => [`one: ${url}`, [[url]]]),
  ...URLS.map((url): [string, string[][]] => [`again: ${url}`, [[url]]]),
  ["ten in one request", [Array.from({ length: 10 }, (_, i) => URLS[i % URLS.length] as string)]],
  [
    "five requests at once",
    Array.from({ length: 5 }, (_, i) => [URLS[i % URLS.length] as string, URLS[(i + 3) % URLS.length] as string]),
  ],
];
for (const [name, requests] of plan) {
  if (!(await step(name, requests))) break;
}

const warnings = server.stderr().match(/a connection failed with no one listening/g)?.length ?? 0;
const aliveAtEnd = exit === null;
const stopCode = aliveAtEnd ? await server.stop("SIGTERM") : null;
report({
  key: key !== "",
  bootMs,
  steps,
  planned: plan.length,
  aliveAtEnd,
  exit,
  stopCode,
  guardWarnings: warnings,
  canaryTotal: canaries.total(),
  queries: dns.queries(),
  stderrTail: server.stderr().slice(-3000),
});
await canaries.close();
await dns.close();
data.cleanup();
