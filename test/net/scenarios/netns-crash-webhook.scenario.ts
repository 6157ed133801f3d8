import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { asc, eq } from "drizzle-orm";
import { createWebhookDispatcher } from "../../../containers/webhooks/dispatcher.ts";
import { wrapPglite } from "../../../functions/db/pglite-database.ts";
import { silentLogger } from "../../../functions/lib/logger.ts";
import { accounts, runs, webhookAttempts, webhookDeliveries } from "../../../schema/tables/index.ts";
import { UNROUTABLE } from "../../helpers/netns/netns.ts";
import { report } from "../../helpers/netns/scenario.ts";
import { startStubDns } from "../../helpers/netns/stub-dns.ts";

/**
 * Issue 15's webhook half: a delivery to a host whose only address has no route (connect() fails at
 * once with ENETUNREACH) crashed the process at the first attempt, and again at every retry after a
 * restart. The real dispatcher runs here, in the scenario's own process and with no process guard
 * installed (so a stray socket error would end it), against an in-memory PGlite, until each
 * delivery has used its whole retry schedule. Time moves by a clock the scenario advances, so no
 * retry waits for real.
 */

const ACCOUNT = "acct_netns";
const RUN = "run_netns";
const SCHEDULE = [5_000, 5_000, 5_000]; // four attempts in all

const dns = await startStubDns();
dns.set("v6only.crash.example.com", { AAAA: [UNROUTABLE.v6] });
dns.set("noroute.crash.example.com", { A: [UNROUTABLE.v4] });

// A migrated snapshot (the test passes vitest's) loads much faster than migrating from scratch.
const snapshot = process.env.PGLITE_SNAPSHOT;
const database = wrapPglite(
  await PGlite.create(snapshot ? { loadDataDir: new Blob([readFileSync(snapshot)]) } : {}),
  "pglite (in memory)",
);
if (!snapshot) await database.migrate();
const db = database.db;
await db.insert(accounts).values({ id: ACCOUNT, plan: "free" });
await db.insert(runs).values({
  id: RUN,
  accountId: ACCOUNT,
  keyId: "key_1",
  keyScope: "api",
  entry: "async",
  status: "COMPLETED",
  request: { url: "https://example.com", goal: "x" },
});

// CRASH_URLS (a JSON list) replaces the list, to show each URL alone against an older tree.
const URLS: string[] = process.env.CRASH_URLS
  ? JSON.parse(process.env.CRASH_URLS)
  : [
      "https://v6only.crash.example.com/hooks/osprey",
      "https://noroute.crash.example.com:8443/hooks",
      `https://[${UNROUTABLE.v6}]/hooks`,
      `https://${UNROUTABLE.v4}/hooks`,
    ];
for (const [i, url] of URLS.entries()) {
  await db.insert(webhookDeliveries).values({
    id: `msg_netns_${i}`,
    runId: RUN,
    accountId: ACCOUNT,
    url,
    eventType: "run.completed",
    payload: { type: "run.completed", data: { run_id: RUN, status: "COMPLETED" } },
  });
}

let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
const dispatcher = createWebhookDispatcher({
  db,
  logger: silentLogger,
  allowPrivateHosts: [],
  clock,
  schedule: SCHEDULE,
  timeoutMs: 3000,
  concurrency: URLS.length,
});

const rounds: unknown[] = [];
for (let round = 0; round < 10; round++) {
  rounds.push(await dispatcher.runOnce());
  const pending = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  if (pending.length === 0) break;
  offset += 10_000; // past the next backoff
}

const deliveries = await db
  .select({
    id: webhookDeliveries.id,
    url: webhookDeliveries.url,
    status: webhookDeliveries.status,
    attempts: webhookDeliveries.attempts,
    lastStatus: webhookDeliveries.lastStatus,
    lastError: webhookDeliveries.lastError,
  })
  .from(webhookDeliveries)
  .orderBy(asc(webhookDeliveries.id));
const attempts = await db
  .select({
    deliveryId: webhookAttempts.deliveryId,
    attempt: webhookAttempts.attempt,
    outcome: webhookAttempts.outcome,
    statusCode: webhookAttempts.statusCode,
    error: webhookAttempts.error,
  })
  .from(webhookAttempts)
  .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));

report({ schedule: SCHEDULE, rounds, deliveries, attempts, queries: dns.queries() });
await database.close();
await dns.close();
