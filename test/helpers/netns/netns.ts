import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Runs a scenario script in a network namespace of its own: only `lo`, no routes, so nothing can
 * leave the machine; the metadata and private addresses (and a few public ones standing in for
 * internet origins) are bound to `lo`, where the scenario's canary listeners answer. The scenario
 * runs its own stub DNS server on 127.0.0.1:53 (stub-dns.ts), and the namespace's /etc/resolv.conf,
 * /etc/hosts and /etc/nsswitch.conf are replaced (bind mounts in a private mount namespace) so the
 * system resolver asks that stub and nothing else.
 *
 * The child also gets a PID namespace in which the scenario is process 1: when it exits or is
 * killed, the kernel kills everything it started (servers, browsers), so no process outlives it.
 *
 * A scenario prints one line `NETNS-REPORT <json>` (see `report()` in scenario.ts); the test
 * asserts on that report, so a failure shows what the scenario saw.
 */

export const REPORT_PREFIX = "NETNS-REPORT ";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Public addresses bound to `lo`: reachable inside the namespace only, they play internet origins. */
export const PUBLIC_ORIGIN = { v4: "93.184.216.34", v4b: "93.184.216.35", v6: "2606:2800:220:1::1" } as const;

/** Bound to `lo` inside the namespace unless a run names its own list. */
export const DEFAULT_ADDRESSES: readonly string[] = [
  "169.254.169.254/32", // AWS, GCP, Azure instance metadata
  "169.254.170.2/32", // ECS task metadata
  "10.0.0.1/32",
  "192.168.1.1/32",
  "172.16.0.1/32",
  "100.64.0.1/32", // carrier-grade NAT
  "fd00:ec2::254/128", // AWS IPv6 instance metadata
  "fd00::1/128",
  // Public addresses, reachable only inside the namespace: stand-ins for internet origins.
  `${PUBLIC_ORIGIN.v4}/32`,
  `${PUBLIC_ORIGIN.v4b}/32`,
  `${PUBLIC_ORIGIN.v6}/128`,
];

/** Addresses with no route in the namespace: a connect() to them fails at once with ENETUNREACH. */
export const UNROUTABLE = { v4: "8.8.8.8", v6: "2001:4860:4860::8888" } as const;

export type NetnsSupport = { ok: true } | { ok: false; reason: string };

const UNSHARE_ARGS = ["--net", "--mount", "--pid", "--fork", "--mount-proc", "--propagation", "private", "--kill-child"];

let support: NetnsSupport | undefined;

/** Whether this machine can run scenarios (root, `unshare`, `ip`); checked once per process. */
export function netnsSupport(): NetnsSupport {
  support ??= probe();
  return support;
}

function probe(): NetnsSupport {
  if (process.platform !== "linux") return { ok: false, reason: `network namespaces need Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0)
    return { ok: false, reason: "network namespaces need root (unshare -n); run as root, as CI does" };
  const run = spawnSync("unshare", [...UNSHARE_ARGS, "sh", "-c", "ip link set lo up && ip addr add 169.254.169.254/32 dev lo"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (run.error) return { ok: false, reason: `unshare could not run (${run.error.message}); install util-linux` };
  if (run.status !== 0) {
    const why = `${run.stderr}`.trim() || `exit ${run.status}`;
    return { ok: false, reason: `unshare -n -m -p or ip failed: ${why} (needs util-linux, iproute2 and CAP_SYS_ADMIN)` };
  }
  return { ok: true };
}

export interface NetnsOptions {
  /** The scenario's environment, on top of PATH and HOME. */
  env?: Record<string, string>;
  /** The whole namespace is killed after this long (default 30 s). */
  timeoutMs?: number;
  /** CIDRs bound to `lo` instead of DEFAULT_ADDRESSES. */
  addresses?: readonly string[];
}

export interface NetnsResult<R> {
  /** The scenario's NETNS-REPORT, or null if it printed none (it crashed, or ran out of time). */
  report: R | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

const RESOLV_CONF = "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n";
const HOSTS = "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n";
// Only files and DNS: no mDNS, and no systemd-resolved (its socket is outside the namespace and
// would resolve on the real network).
const NSSWITCH_HOSTS = "hosts: files dns";

function nsswitch(): string {
  let original = "";
  try {
    original = readFileSync("/etc/nsswitch.conf", "utf8");
  } catch {
    // No nsswitch.conf: glibc's defaults apply to everything but hosts.
  }
  const kept = original.split("\n").filter((line) => !/^\s*hosts\s*:/.test(line));
  return `${[...kept, NSSWITCH_HOSTS].join("\n")}\n`;
}

// Runs as process 1 of the namespace: $1 the directory of the generated files, $2 the script, then
// the addresses. `exec` makes node process 1, so its exit ends the namespace.
const SETUP = `set -e
dir="$1"; script="$2"; node="$3"; shift 3
ip link set lo up
for a in "$@"; do ip addr add "$a" dev lo; done
mount --bind "$dir/resolv.conf" /etc/resolv.conf
mount --bind "$dir/hosts" /etc/hosts
mount --bind "$dir/nsswitch.conf" /etc/nsswitch.conf
exec "$node" --experimental-strip-types --disable-warning=ExperimentalWarning "$script"
`;

/** Runs `scriptFile` with node in a fresh network, mount and PID namespace; resolves when it is gone. */
export async function runInNetns<R = unknown>(scriptFile: string, opts: NetnsOptions = {}): Promise<NetnsResult<R>> {
  const supported = netnsSupport();
  if (!supported.ok) throw new Error(`network namespaces are unavailable: ${supported.reason}`);
  const dir = mkdtempSync(path.join(tmpdir(), "osprey-netns-"));
  writeFileSync(path.join(dir, "resolv.conf"), RESOLV_CONF);
  writeFileSync(path.join(dir, "hosts"), HOSTS);
  writeFileSync(path.join(dir, "nsswitch.conf"), nsswitch());
  const script = path.resolve(scriptFile);
  const addresses = opts.addresses ?? DEFAULT_ADDRESSES;
  const child = spawn("unshare", [...UNSHARE_ARGS, "sh", "-c", SETUP, "netns", dir, script, process.execPath, ...addresses], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so a timeout can kill unshare and everything under it at once.
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    stdout += s;
  });
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const killTree = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, opts.timeoutMs ?? 30_000);
  const onExit = () => killTree();
  process.once("exit", onExit);
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (c, s) => resolve({ code: c, signal: s }));
    });
    return { report: parseReport<R>(stdout), code, signal, timedOut, stdout, stderr };
  } finally {
    clearTimeout(timer);
    // --kill-child and the PID namespace already ended every process of the scenario; this only
    // catches a stray one that left the group before the namespace existed.
    killTree();
    process.off("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseReport<R>(stdout: string): R | null {
  const line = stdout.split("\n").find((l) => l.startsWith(REPORT_PREFIX));
  return line === undefined ? null : (JSON.parse(line.slice(REPORT_PREFIX.length)) as R);
}

/** A compact account of a run for assertion messages. */
export function describeRun(r: NetnsResult<unknown>): string {
  const tail = (s: string) => (s.length > 4000 ? `…${s.slice(-4000)}` : s);
  return `exit ${r.code} signal ${r.signal}${r.timedOut ? " (timed out)" : ""}\n--- stdout\n${tail(r.stdout)}\n--- stderr\n${tail(r.stderr)}`;
}
