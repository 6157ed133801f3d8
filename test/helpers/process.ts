import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BASELINE_WASM_FLAG } from "../../containers/cli/module-hooks.ts";

/**
 * Runs the real CLI (`containers/cli/osprey.ts`, what `npx osprey` and `npm start` run) as a child
 * process with a minimal environment: PATH, HOME and the variables a test passes, never the
 * parent's DATABASE_URL or OSPREY_*. Every child is tracked so `killChildren()` (an afterEach /
 * afterAll hook) can make sure none outlives its test.
 */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI_PATH = path.join(REPO_ROOT, "containers/cli/osprey.ts");

export type Env = Record<string, string>;

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/** The environment a child gets: PATH and HOME from this process, plus `env`. */
export function childEnv(env: Env): Env {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), ...env };
}

function spawnCli(args: string[], env: Env, input?: string): ChildProcess {
  // A server a test starts lives seconds, not days: like a CLI command, its PGlite stays on
  // baseline code instead of spending ~2 s of CPU on optimizing compiles (module-hooks.ts).
  const flags = args[0] === "serve" || args[0] === "worker" ? [BASELINE_WASM_FLAG] : [];
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", ...flags, CLI_PATH, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (input !== undefined) {
    // A child that exits without reading its input closes the pipe: not the test's failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  }
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Resolves when the child has exited and its output streams are drained. */
function waitForExit(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      // "close" may already have fired; exit status is final either way.
      if (!child.stdout?.readable && !child.stderr?.readable) {
        resolve({ code: child.exitCode, signal: child.signalCode });
        return;
      }
    }
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    err += s;
  });
  return { stdout: () => out, stderr: () => err };
}

/** Runs `osprey <args>` to completion (with `input` on its standard input); kills it (SIGKILL) if it runs past `timeoutMs`. */
export async function runCli(
  args: string[],
  env: Env,
  { timeoutMs = 30_000, input }: { timeoutMs?: number; input?: string } = {},
): Promise<ExitResult> {
  const child = spawnCli(args, env, input);
  const output = collect(child);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  try {
    const { code, signal } = await waitForExit(child);
    if (timedOut) {
      throw new Error(
        `osprey ${args.join(" ")} ran past ${timeoutMs} ms\nstdout: ${output.stdout()}\nstderr: ${output.stderr()}`,
      );
    }
    return { code, signal, stdout: output.stdout(), stderr: output.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` has appeared on stderr (e.g. a log line); rejects if the server exits first. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Exit code once exited (without sending anything). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const BANNER = /^Osprey \S+ is listening on (http:\/\/\S+)$/m;

/** The whole banner is one write: it ends with the model line, or with the curl line on a first start. */
function bannerComplete(out: string): boolean {
  if (!BANNER.test(out) || !/^ {2}model\s.*\n/m.test(out)) return false;
  return !out.includes("First start:") || /^ {2}curl .*\n/m.test(out);
}

/** Waits on the child's output streams (event-driven) until `done(text)` holds. */
function waitForOutput(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  read: () => string,
  done: (text: string) => boolean,
  timeoutMs: number,
  what: string,
  context: () => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child[stream]?.off("data", onData);
      child.off("close", onExit);
    };
    const onData = () => {
      // Our own collector was attached first, so read() already includes this chunk.
      if (done(read())) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`osprey exited (code ${code}, signal ${signal}) before ${what}\n${context()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${context()}`));
    }, timeoutMs);
    if (done(read())) {
      cleanup();
      resolve();
      return;
    }
    child[stream]?.on("data", onData);
    child.once("close", onExit);
  });
}

/** Spawns `osprey serve` and resolves once its start-up banner has been printed. */
export async function startServer(env: Env, { timeoutMs = 45_000 } = {}): Promise<RunningServer> {
  const child = spawnCli(["serve"], env);
  const output = collect(child);
  const exited = waitForExit(child);
  exited.catch(() => {});
  const context = () => `stdout: ${output.stdout()}\nstderr: ${output.stderr()}`;
  try {
    await waitForOutput(child, "stdout", output.stdout, bannerComplete, timeoutMs, "the start-up banner", context);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  const url = (BANNER.exec(output.stdout()) as RegExpExecArray)[1] as string;
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid as number,
    stdout: output.stdout,
    stderr: output.stderr,
    exited,
    waitForStderr: (pattern, ms = 15_000) =>
      waitForOutput(child, "stderr", output.stderr, (s) => pattern.test(s), ms, `${pattern} on stderr`, context),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      try {
        return (await exited).code;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Kills every child still running (SIGKILL) and waits for them; for afterEach/afterAll. */
export async function killChildren(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map((c) => (c.exitCode === null && c.signalCode === null ? waitForExit(c).catch(() => {}) : null)));
}

/**
 * An afterAll body: runs every cleanup, last registered first (servers stop gracefully, so a test
 * can check their exit code, before their data dirs go), then kills any child left; rethrows the
 * first cleanup that failed once all have run.
 */
export async function runCleanups(cleanups: Array<() => Promise<void> | void>): Promise<void> {
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (err) {
      failures.push(err);
    }
  }
  await killChildren();
  if (failures.length > 0) throw failures[0];
}

process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** A fresh temporary directory; `cleanup` removes it. */
export function tempDir(prefix = "osprey-test-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningWorker {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

/** `osprey worker` in its own process; resolves once it printed that it started. */
export async function startWorkerProcess(env: Env, { timeoutMs = 45_000 } = {}): Promise<RunningWorker> {
  const child = spawnCli(["worker"], env);
  const output = collect(child);
  const exited = waitForExit(child);
  exited.catch(() => {});
  const deadline = Date.now() + timeoutMs;
  while (!/worker \S+ started/.test(output.stdout())) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`worker exited before starting\nstdout: ${output.stdout()}\nstderr: ${output.stderr()}`);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`worker did not start in ${timeoutMs} ms\nstderr: ${output.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid ?? 0,
    stdout: output.stdout,
    stderr: output.stderr,
    exited,
    kill: (signal) => child.kill(signal),
  };
}

/**
 * A port for a child process to listen on, free when this resolves. Drawn at random below Linux's
 * ephemeral range (32768-60999), which is where listen(0) and every outbound connection take their
 * ports: a port probed there and let go was sometimes taken by another process's connection (a
 * browser's, a database client's) before the child bound it (EADDRINUSE).
 */
export async function freeListenPort(): Promise<number> {
  const { createServer } = await import("node:net");
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const s = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (ok) {
      await new Promise((r) => s.close(r));
      return port;
    }
  }
  throw new Error("no free port found between 20000 and 32000 in 50 tries");
}
