import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, netnsSupport, PUBLIC_ORIGIN, runInNetns, UNROUTABLE } from "../helpers/netns/netns.ts";

/**
 * The network-namespace harness (test/helpers/netns) checked from inside a namespace: the stub DNS
 * answers the system resolver (and can change its answer between lookups), canaries count what
 * reaches the metadata addresses, public stand-in origins answer, addresses with no route fail at
 * once with ENETUNREACH, and nothing outside the namespace (the host's DNS server, the host's
 * loopback) can be reached. Scenarios also leave no process behind, whether they exit or hang.
 */

const support = netnsSupport();
const scenario = (name: string) => path.resolve(import.meta.dirname, "scenarios", name);

/** The host's own nameserver: the namespace must not be able to reach it. */
function outsideNameserver(): string {
  const line = readFileSync("/etc/resolv.conf", "utf8")
    .split("\n")
    .find((l) => /^nameserver\s+\d+\.\d+\.\d+\.\d+/.test(l));
  const address = line?.split(/\s+/)[1];
  // A loopback nameserver (systemd-resolved's stub) says nothing about reaching out: use a public one.
  return address && !address.startsWith("127.") ? address : "1.1.1.1";
}

type Attempt<T = unknown> = { ok: true; value: T; ms: number } | { ok: false; code: string | null; message: string; ms: number };
type Addresses = Attempt<{ address: string; family: number }[]>;
interface HarnessReport {
  lookups: {
    static: Addresses;
    both: Addresses;
    v6only: Addresses;
    v6onlyAsV4: Attempt;
    unknown: Addresses;
    localhost: Addresses;
    rebind: Addresses[];
    caresResolve4: Attempt<string[]>;
  };
  queries: { name: string; type: string }[];
  metadata: Attempt<string>;
  metadataV6: Attempt<string>;
  udpCanary: Attempt<string>;
  publicOrigin: Attempt<string>;
  unroutable: Record<
    "fetchV4" | "fetchV6" | "fetchName" | "outsideNameserver" | "outsideNameserverTcp" | "outsideLoopback",
    Attempt
  >;
  routes: { v4: string; v6Default: string; links: string[] };
  canaries: { host: string; port: number; proto: string; count: number; firstBytes: string; remotes: string[] }[];
  canaryTotal: number;
  secret: string;
}

const addresses = (a: Addresses) => (a.ok ? a.value.map((v) => v.address) : a.code);

describe.skipIf(!support.ok)(`network namespace harness${support.ok ? "" : ` (skipped: ${support.reason})`}`, () => {
  let outside: Server;
  let outsideHits = 0;
  let report: HarnessReport;
  beforeAll(async () => {
    outside = createServer((socket) => {
      outsideHits++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => outside.listen(0, "127.0.0.1", resolve));
    const port = (outside.address() as { port: number }).port;
    const run = await runInNetns<HarnessReport>(scenario("netns-harness.scenario.ts"), {
      env: { OUTSIDE_PORT: String(port), OUTSIDE_NAMESERVER: outsideNameserver() },
      timeoutMs: 20_000,
    });
    if (!run.report || run.code !== 0) throw new Error(`the harness scenario failed: ${describeRun(run)}`);
    report = run.report;
  });
  afterAll(() => new Promise<void>((resolve) => (outside ? outside.close(() => resolve()) : resolve())));

  it("the system resolver asks the stub, for A and AAAA, and gets its answers", () => {
    const { lookups } = report;
    expect(addresses(lookups.static)).toEqual([PUBLIC_ORIGIN.v4]);
    expect(addresses(lookups.both)).toEqual(expect.arrayContaining([PUBLIC_ORIGIN.v4, PUBLIC_ORIGIN.v6]));
    expect(addresses(lookups.v6only)).toEqual([UNROUTABLE.v6]);
    expect(lookups.v6onlyAsV4).toMatchObject({ ok: false, code: "ENOTFOUND" });
    expect(addresses(lookups.unknown)).toBe("ENOTFOUND");
    expect(lookups.caresResolve4).toMatchObject({ ok: true, value: ["10.0.0.1"] });
    for (const type of ["A", "AAAA"]) expect(report.queries).toContainEqual({ name: "both.test.example", type });
  });

  it("a rebinding name answers public first, then the metadata address", () => {
    expect(report.lookups.rebind.map(addresses)).toEqual([[PUBLIC_ORIGIN.v4], ["169.254.169.254"], ["169.254.169.254"]]);
  });

  it("/etc/hosts holds only localhost, which never reaches the stub", () => {
    expect(addresses(report.lookups.localhost)).toEqual(expect.arrayContaining(["127.0.0.1"]));
    expect(report.queries.map((q) => q.name)).not.toContain("localhost");
  });

  it("canaries on the metadata addresses count each connection and datagram, and answer with the secret", () => {
    expect(report.metadata).toMatchObject({ ok: true, value: expect.stringContaining(report.secret) });
    expect(report.metadataV6).toMatchObject({ ok: true, value: expect.stringContaining(report.secret) });
    expect(report.udpCanary).toMatchObject({ ok: true, value: expect.stringContaining(report.secret) });
    const hit = (host: string, proto: string) => report.canaries.find((c) => c.host === host && c.proto === proto);
    expect(hit("169.254.169.254", "tcp")).toMatchObject({
      count: 1,
      firstBytes: expect.stringMatching(/^GET \/latest\/meta-data\/iam\/ HTTP\/1\.1\r\n/),
    });
    expect(hit("fd00:ec2::254", "tcp")).toMatchObject({ count: 1 });
    expect(hit("10.0.0.1", "udp")).toMatchObject({ count: 1, firstBytes: "ping" });
    expect(hit("10.0.0.1", "tcp")).toMatchObject({ count: 0 });
    expect(report.canaryTotal).toBe(3);
  });

  it("a public stand-in origin bound to lo answers", () => {
    expect(report.publicOrigin).toMatchObject({ ok: true, value: "public origin" });
  });

  it("addresses with no route fail at once with ENETUNREACH; nothing outside the namespace is reachable", () => {
    const u = report.unroutable;
    for (const a of [u.fetchV4, u.fetchV6, u.fetchName, u.outsideNameserver, u.outsideNameserverTcp]) {
      expect(a).toMatchObject({ ok: false, code: "ENETUNREACH" });
      expect(a.ms).toBeLessThan(1000);
    }
    expect(u.outsideLoopback).toMatchObject({ ok: false, code: "ECONNREFUSED" });
    expect(outsideHits).toBe(0);
    expect(report.routes).toEqual({ v4: "", v6Default: "", links: ["lo"] });
  });
});

describe.skipIf(!support.ok)(`network namespace clean-up${support.ok ? "" : ` (skipped: ${support.reason})`}`, () => {
  /** Processes on the host whose command line carries `token`. */
  function processesWith(token: string): string[] {
    const found: string[] = [];
    for (const pid of readdirSafe("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(token)) found.push(pid);
      } catch {
        // Gone already.
      }
    }
    return found;
  }

  it.each(["exit", "hang"])("a scenario that starts a detached process and then %ss leaves nothing behind", async (mode) => {
    const token = `netns-leftover-${mode}-${process.pid}-${Date.now()}`;
    const run = await runInNetns<{ started: boolean }>(scenario("netns-leftover.scenario.ts"), {
      env: { NETNS_TOKEN: token, MODE: mode },
      timeoutMs: mode === "hang" ? 1500 : 10_000,
    });
    expect(run.report, describeRun(run)).toEqual({ started: true });
    expect(run.timedOut).toBe(mode === "hang");
    // The kernel ends a PID namespace's processes asynchronously once its first process is gone:
    // under load a killed one can still be listed for a moment. Wait for it (bounded), then check.
    const deadline = Date.now() + 5000;
    while (processesWith(token).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processesWith(token)).toEqual([]);
  });
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
