import { spawn } from "node:child_process";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionTargetSetup } from "../../containers/sessions/prepare-target.ts";
import { createLocalSessionHost, type LocalSessionHost } from "../../containers/sessions/session-host.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { createServices } from "../../functions/services/index.ts";
import { type BrowserSessionRow, type SessionRepo, sessionRepo } from "../../functions/sessions/session.repo.ts";
import type { SessionLaunch } from "../../functions/sessions/session-host.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { insertSessionRow } from "../helpers/session-rows.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

/**
 * The session host's own duties (issue [2 of 6]): the hard cap and the inactivity timeout end a
 * session and write its usage, a client that vanishes without a goodbye leaves no browser behind,
 * a full host says so, and sessions of a host that died are ended by the next one. The timers are
 * the production ones, given short durations through the launch (the API's minimums are 60 s and
 * 10 s; these tests are about what happens when they expire, not about the numbers).
 */

const hasChrome = chromeAvailable("session host tests");

describe.skipIf(!hasChrome).each(driverCases(["pglite", "pg"]))("the session host on $driver", ({ open }) => {
  let db: TestDatabase;
  let repo: SessionRepo;
  let host: LocalSessionHost;
  let accountId: string;

  /** A session row as the API inserts it, and the launch the host gets. */
  const newSession = async (o: { timeoutMs?: number; inactivityMs?: number; hostId?: string } = {}): Promise<SessionLaunch> => {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + (o.timeoutMs ?? 60_000));
    const { id, token } = await insertSessionRow(repo, { accountId, hostId: o.hostId ?? host.hostId, startTime: now, expiresAt });
    return {
      id,
      accountId,
      token,
      mode: "light",
      viewport: { width: 800, height: 600 },
      fingerprintSeed: "s",
      countryCode: null,
      upstream: null,
      startedAt: now,
      expiresAt,
      inactivityMs: o.inactivityMs ?? 60_000,
      profile: null,
    };
  };

  const endedRow = (id: string) =>
    waitFor(async () => {
      const row = await repo.get(id);
      return row?.status === "ended" ? row : null;
    });

  /** The pid of the browser a session's CDP URL reaches. */
  const browserPid = async (launch: SessionLaunch, url: string) => {
    const b = await puppeteer.connect({ browserWSEndpoint: `${url}/browser/${launch.id}/cdp?token=${launch.token}` });
    const info = await (await b.target().createCDPSession()).send("SystemInfo.getProcessInfo");
    return { browser: b, pid: info.processInfo.find((p) => p.type === "browser")?.id as number };
  };

  let url = "";
  let server: import("node:http").Server;

  beforeAll(async () => {
    db = await open();
    repo = sessionRepo(db.db);
    const services = createServices({ db: db.db, clock: systemClock, ids: defaultIds });
    accountId = (await services.accounts.create({ plan: "pro" })).id;
    host = createLocalSessionHost({
      db: db.db,
      clock: systemClock,
      logger: silentLogger,
      executablePath: CHROME,
      allowPrivateHosts: [],
      warmPool: 1,
      maxSessions: 3,
      authenticate: (key) => services.apiKeys.authenticate(key),
      prefix: "/browser",
      prepareTarget: sessionTargetSetup,
      tickMs: 50,
      heartbeatMs: 200,
      lostAfterMs: 1_000,
    });
    const http = await import("node:http");
    server = http.createServer((_req, res) => res.writeHead(404).end());
    server.on("upgrade", (req, socket, head) => {
      if (!host.handleUpgrade(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`;
    // A warm browser for the first test, as a server that has been up a moment has one: its hard cap is short.
    await host.pool.filled();
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await db?.dispose();
  });

  it("ends a session at its hard cap, with a connected client, and writes its usage", async () => {
    const launch = await newSession({ timeoutMs: 4_000 });
    await host.start(launch);
    const { browser, pid } = await browserPid(launch, url);
    const gone = new Promise<void>((resolve) => browser.once("disconnected", () => resolve()));
    const row = await endedRow(launch.id);
    await gone;
    expect(row.endReason).toBe("timeout");
    expect(row.durationMs).toBeGreaterThanOrEqual(3_900);
    expect(row.proxyRxBytes).toBe(0);
    expect(await processGone(pid)).toBe(true);
    expect(host.live()).toBe(0);
  }, 30_000);

  it("ends a session after its inactivity timeout once no client is connected: a killed client leaves no browser behind", async () => {
    const launch = await newSession({ inactivityMs: 600 });
    await host.start(launch);
    // The first client stays connected until the second has: the session must not go idle in between
    // (starting a Node process takes longer than this short timeout on a loaded machine).
    const { browser, pid } = await browserPid(launch, url);
    // A client in a process of its own, killed with SIGKILL while connected: no close frame, no goodbye.
    const endpoint = `${url}/browser/${launch.id}/cdp?token=${launch.token}`;
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import p from "puppeteer-core"; try { const b = await p.connect({ browserWSEndpoint: ${JSON.stringify(endpoint)} }); await b.newPage(); console.log("connected"); setInterval(() => {}, 1000); } catch (e) { console.log("failed " + e.message); process.exit(1); }`,
      ],
      { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] },
    );
    const outcome = await new Promise<string>((resolve) => {
      child.stdout?.on("data", (d) => {
        const line = String(d);
        if (line.includes("connected") || line.includes("failed")) resolve(line.trim());
      });
      child.once("exit", () => resolve("exited"));
    });
    expect(outcome).toBe("connected");
    await browser.disconnect();
    // Connected and quiet for longer than the timeout: inactivity does not count while a client is there.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await repo.get(launch.id))?.status).toBe("running");
    child.kill("SIGKILL");
    const row: BrowserSessionRow = await endedRow(launch.id);
    expect(row.endReason).toBe("inactivity");
    expect(await processGone(pid)).toBe(true);
  }, 30_000);

  it("says it is full past its capacity, and is not full again once a session ended", async () => {
    const launches = await Promise.all([newSession(), newSession(), newSession()]);
    for (const l of launches) await host.start(l);
    const fourth = await newSession();
    await expect(host.start(fourth)).rejects.toThrow(/holds 3 sessions/);
    expect(await host.end(launches[0]?.id as string, "deleted")).toBe(true);
    await host.start(fourth);
    for (const l of [...launches.slice(1), fourth]) await host.end(l.id, "deleted");
    expect(host.live()).toBe(0);
    // A session this host does not hold is not its to end.
    expect(await host.end("bs_unknown", "deleted")).toBe(false);
  }, 60_000);

  it("ends the open sessions of a host that stopped writing (host_lost), with the byte counts it last wrote", async () => {
    const launch = await newSession({ hostId: "host_dead" });
    await repo.recordBytes(launch.id, 1234, 56, new Date(Date.now() - 5_000));
    // recordBytes moved updated_at back; the live host's heartbeat finds it stale and ends it.
    const row = await endedRow(launch.id);
    expect(row.endReason).toBe("host_lost");
    expect([row.proxyRxBytes, row.proxyTxBytes]).toEqual([1234, 56]);
  }, 30_000);

  it("refuses CDP upgrades for unknown sessions and bad tokens, without holding the socket", async () => {
    const launch = await newSession();
    await host.start(launch);
    const { default: WsClient } = await import("ws");
    const status = (path: string) =>
      new Promise<number | "open">((resolve) => {
        const ws = new WsClient(`${url}${path}`.replace(/^http/, "ws"));
        ws.once("open", () => {
          ws.terminate();
          resolve("open");
        });
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("error", () => {});
      });
    expect(await status(`/browser/${launch.id}/cdp?token=${"A".repeat(32)}`)).toBe(404);
    expect(await status(`/browser/${launch.id}/cdp?token=short`)).toBe(404);
    // As many characters as a token, more bytes: still a plain 404, not a failed comparison.
    expect(await status(`/browser/${launch.id}/cdp?token=${encodeURIComponent("é".repeat(32))}`)).toBe(404);
    expect(await status(`/browser/bs_nope/cdp?token=${launch.token}`)).toBe(404);
    expect(await status(`/browser/${launch.id}/cdp`)).toBe(401);
    expect(await status(`/browser/${launch.id}/cdp?token=${launch.token}`)).toBe("open");
    await host.end(launch.id, "deleted");
    expect(await status(`/browser/${launch.id}/cdp?token=${launch.token}`)).toBe(404);
  }, 30_000);
});

describe.each(driverCases(["pglite", "pg"]))("a session host restarting under its id on $driver", ({ open }) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await open();
  }, 60_000);

  afterAll(async () => {
    await db?.dispose();
  });

  it("ends what its predecessor held, never a session created for itself while its sweep was on its way", async () => {
    const repo = sessionRepo(db.db);
    const accountId = (await createServices({ db: db.db, clock: systemClock, ids: defaultIds }).accounts.create({ plan: "pro" }))
      .id;
    const row = async (startTime: Date) =>
      (
        await insertSessionRow(repo, {
          accountId,
          hostId: "host_task_1",
          startTime,
          expiresAt: new Date(startTime.getTime() + 600_000),
        })
      ).id;
    const now = Date.now();
    const predecessors = await Promise.all([row(new Date(now - 60_000)), row(new Date(now - 1))]);
    // Inserted before the host exists, but started (by the host's clock) after it was born: as a
    // session created through the new host lands when the sweep's query runs late.
    const own = await row(new Date(now + 5_000));
    const host = createLocalSessionHost({
      db: db.db,
      clock: { now: () => new Date(now) },
      logger: silentLogger,
      executablePath: CHROME,
      allowPrivateHosts: [],
      hostId: "host_task_1",
      warmPool: 0,
      maxSessions: 1,
      authenticate: () => Promise.reject(new Error("no client connects in this test")),
      prefix: "",
      prepareTarget: sessionTargetSetup,
      tickMs: 60_000,
      heartbeatMs: 60_000,
    });
    try {
      for (const id of predecessors) {
        const ended = await waitFor(async () => {
          const r = await repo.get(id);
          return r?.status === "ended" ? r : null;
        });
        expect(ended.endReason).toBe("host_lost");
      }
      await new Promise((r) => setTimeout(r, 300));
      expect((await repo.get(own))?.status).not.toBe("ended");
    } finally {
      await host.close();
    }
  });
});
