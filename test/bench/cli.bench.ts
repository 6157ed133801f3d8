/**
 * `npm run bench -- cli [--runs n] [--baseline <checkout>]`: how long the CLI takes, beside an
 * anchor in the same run: plain `node -e 0` with the flags the CLI runs with, timed alternately
 * with each command so that the machine's load weighs on both alike.
 *
 * - `osprey --help`; `osprey keys list` on the embedded database with no server (it opens PGlite
 *   itself) and beside a running server (through the admin socket); `accounts webhook-secret`
 *   through the socket;
 * - a first start: `osprey serve` on a new data dir until its banner, with the steps it logs.
 *
 * Wall time and CPU time (user + system, from /usr/bin/time) per run; medians reported, with the
 * ratio to the anchor. `--baseline` names another checkout of Osprey (with node_modules), e.g. a
 * `git worktree` of an older commit: its CLI is measured the same way, in the same run.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FLAGS = ["--disable-warning=ExperimentalWarning"];
const TIME = "/usr/bin/time";

interface Sample {
  wallMs: number;
  cpuMs: number | null;
  code: number | null;
  stdout: string;
  stderr: string;
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const baseEnv = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? tmpdir(),
  ...extra,
});

/** Runs `node <flags> <args>` once, under /usr/bin/time when there is one (for the CPU time). */
function runNode(args: string[], env: Record<string, string>, cwd: string): Promise<Sample> {
  const timed = existsSync(TIME);
  const argv = timed ? ["-f", "@@time %U %S", process.execPath, ...FLAGS, ...args] : [...FLAGS, ...args];
  const started = performance.now();
  const child = spawn(timed ? TIME : process.execPath, argv, { cwd, env: baseEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    stdout += s;
  });
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const wallMs = performance.now() - started;
      const m = /@@time ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      const cpuMs = m ? (Number(m[1]) + Number(m[2])) * 1000 : null;
      resolve({ wallMs, cpuMs, code, stdout, stderr: stderr.replace(/@@time .*\s*$/, "") });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

interface Row {
  what: string;
  wall: number;
  cpu: number | null;
  anchorWall: number;
  anchorCpu: number | null;
}

/** Times `args` `runs` times, each right after one anchor run. */
async function measure(
  what: string,
  cli: string,
  args: string[],
  env: Record<string, string>,
  runs: number,
  check: (s: Sample) => void,
): Promise<Row> {
  const samples: Sample[] = [];
  const anchors: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    anchors.push(await runNode(["-e", "0"], {}, REPO));
    const s = await runNode([cli, ...args], env, REPO);
    check(s);
    samples.push(s);
  }
  const cpu = samples.every((s) => s.cpuMs !== null) ? median(samples.map((s) => s.cpuMs as number)) : null;
  const anchorCpu = anchors.every((s) => s.cpuMs !== null) ? median(anchors.map((s) => s.cpuMs as number)) : null;
  return { what, wall: median(samples.map((s) => s.wallMs)), cpu, anchorWall: median(anchors.map((s) => s.wallMs)), anchorCpu };
}

const ok = (what: string) => (s: Sample) => {
  if (s.code !== 0) throw new Error(`${what} exited ${s.code}: ${s.stderr}`);
};

function print(rows: Row[]): void {
  const f = (ms: number | null) => (ms === null ? "-" : `${Math.round(ms)}`);
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? "-" : `${(a / b).toFixed(1)}x`);
  process.stdout.write(
    `\n${"".padEnd(52)} ${"wall ms".padStart(8)} ${"cpu ms".padStart(8)}   anchor wall/cpu   ratio wall/cpu\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.what.padEnd(52)} ${f(r.wall).padStart(8)} ${f(r.cpu).padStart(8)}   ${`${f(r.anchorWall)}/${f(r.anchorCpu)}`.padStart(15)}   ${`${ratio(r.wall, r.anchorWall)}/${ratio(r.cpu, r.anchorCpu)}`.padStart(14)}\n`,
    );
  }
}

/** A server on `dataDir` until its banner; returns its stop function and the log lines' step timings. */
async function serve(
  cli: string,
  env: Record<string, string>,
): Promise<{ readyMs: number; steps: string[]; stop(): Promise<void> }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...FLAGS, cli, "serve"], { cwd: REPO, env: baseEnv({ ...env, PORT: "0" }) });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
      if (/^ {2}model\s/m.test(stdout) && (!stdout.includes("First start:") || /^ {2}curl /m.test(stdout)))
        resolve(performance.now() - started);
    });
    child.once("close", (code) => reject(new Error(`serve exited ${code} before its banner\n${stderr}`)));
  });
  const steps = stderr
    .split("\n")
    .filter((l) => / ms=\d+/.test(l))
    .map((l) => `${/msg="([^"]+)"/.exec(l)?.[1] ?? l}: ${/ ms=(\d+)/.exec(l)?.[1]} ms`);
  return {
    readyMs,
    steps,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("close", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function benchCheckout(label: string, repo: string, runs: number, rows: Row[]): Promise<void> {
  const cli = path.join(repo, "containers/cli/osprey.ts");
  const tmp = mkdtempSync(path.join(tmpdir(), "osprey-cli-bench-"));
  try {
    const dataDir = path.join(tmp, "data");
    const env = { OSPREY_DATA_DIR: dataDir, CHROME_PATH: "/nonexistent/chromium", OSPREY_BROWSER_SESSIONS: "off" };
    // First start, as `npm start` on a new data dir (with the machine's Chromium, as a newcomer has it).
    const first = await serve(cli, { OSPREY_DATA_DIR: dataDir });
    await first.stop();
    process.stdout.write(`\n${label}: first start on a new data dir: banner after ${Math.round(first.readyMs)} ms\n`);
    for (const s of first.steps) process.stdout.write(`    ${s}\n`);
    const again = await serve(cli, { OSPREY_DATA_DIR: dataDir });
    await again.stop();
    process.stdout.write(`${label}: second start (same data dir): banner after ${Math.round(again.readyMs)} ms\n`);
    for (const s of again.steps) process.stdout.write(`    ${s}\n`);

    rows.push(await measure(`${label}: osprey --help`, cli, ["--help"], env, runs, ok("--help")));
    rows.push(
      await measure(`${label}: osprey keys list (no server: opens PGlite)`, cli, ["keys", "list"], env, runs, ok("keys list")),
    );
    const server = await serve(cli, env);
    try {
      rows.push(
        await measure(`${label}: osprey keys list (beside the server)`, cli, ["keys", "list"], env, runs, (s) => {
          if (s.code !== 0) process.stdout.write(`    (${label} beside a server: exit ${s.code}: ${s.stderr.split("\n")[0]})\n`);
        }),
      );
      const accounts = await runNode([cli, "accounts", "list", "--json"], env, REPO);
      if (accounts.code === 0) {
        const id = (JSON.parse(accounts.stdout) as { id: string }[])[0]?.id ?? "";
        rows.push(
          await measure(
            `${label}: accounts webhook-secret (beside the server)`,
            cli,
            ["accounts", "webhook-secret", id],
            env,
            runs,
            ok("webhook-secret"),
          ),
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function cliBench(): Promise<void> {
  const runs = Number(option("--runs") ?? 5);
  const baseline = option("--baseline");
  const rows: Row[] = [];
  process.stdout.write(`node ${process.version}; anchor: node ${FLAGS.join(" ")} -e 0; ${runs} runs each, medians\n`);
  if (baseline) await benchCheckout("baseline", path.resolve(baseline), runs, rows);
  await benchCheckout("this checkout", REPO, runs, rows);
  print(rows);
}
