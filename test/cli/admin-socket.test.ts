import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminSocketPath } from "../../containers/local/admin-protocol.ts";
import { type AdminHandler, listenAdminSocket } from "../../containers/local/admin-socket.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { copyMigratedPglite } from "../helpers/data-dir.ts";
import {
  CLI_PATH,
  childEnv,
  type ExitResult,
  killChildren,
  REPO_ROOT,
  type RunningServer,
  runCli,
  startServer,
  tempDir,
} from "../helpers/process.ts";

/**
 * The CLI beside a running `osprey serve` on the embedded database: a real server process on a
 * temporary data dir, and `osprey` commands as child processes that find its admin socket and
 * have the server run them. Each direct (serverless) run opens PGlite, so those are few.
 */

const cleanups: Array<() => void> = [];
afterAll(async () => {
  await killChildren();
  for (const c of cleanups.reverse()) c();
});

/** A data dir whose parents others may traverse, so that only Osprey's own permissions protect the socket. */
function dataDir(): string {
  const t = tempDir("osprey-admin-");
  cleanups.push(t.cleanup);
  chmodSync(t.dir, 0o755);
  const dir = path.join(t.dir, "data");
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  copyMigratedPglite(dir);
  return dir;
}

/** No Chromium and no browser sessions: these tests need the database only, and start faster without. */
const serverEnv = (dir: string) => ({
  OSPREY_DATA_DIR: dir,
  CHROME_PATH: "/nonexistent/chromium",
  OSPREY_BROWSER_SESSIONS: "off",
});

/** What a command printed and returned, for comparing a forwarded run with a direct one. */
const outcome = (r: ExitResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr });

/** Sends raw bytes to the admin socket and collects the server's frames until it closes the connection. */
function rawExchange(file: string, payload: Buffer | string, { end = false } = {}): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(file);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (s: string) => {
      text += s;
    });
    socket.on("error", reject);
    socket.on("close", () =>
      resolve(
        text
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ),
    );
    socket.on("connect", () => {
      socket.write(payload);
      if (end) socket.end();
    });
  });
}

describe("the CLI beside a running server (admin socket)", () => {
  let dir: string;
  let env: Record<string, string>;
  let server: RunningServer;
  let firstKey: string;

  beforeAll(async () => {
    dir = dataDir();
    env = serverEnv(dir);
    server = await startServer({ ...env, PORT: "0" }, { timeoutMs: 300_000 });
    firstKey = server.stdout().match(/osk_[A-Za-z0-9]{40}/)?.[0] as string;
  }, 320_000);

  it("the socket is 0600 in a 0700 folder of this user, inside the data dir", () => {
    const folder = lstatSync(path.join(dir, "admin"));
    expect(folder.isDirectory()).toBe(true);
    expect(folder.mode & 0o777).toBe(0o700);
    const socket = lstatSync(adminSocketPath(dir));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(socket.uid).toBe(process.getuid?.());
    // It never listens on TCP: the banner's port is the HTTP server's only.
    expect(server.stderr()).toContain(`admin socket listening`);
  });

  it.runIf(process.getuid?.() === 0 && existsSync("/usr/bin/python3") && existsSync("/usr/bin/setpriv"))(
    "another user cannot connect: the folder stops it, and so does the socket's own mode",
    () => {
      const file = adminSocketPath(dir);
      const tryAsNobody = () =>
        spawnSync(
          "/usr/bin/setpriv",
          [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(sys.argv[1]); print('connected')\nexcept OSError as e:\n  print(e.errno)",
            file,
          ],
          { encoding: "utf8" },
        ).stdout.trim();
      expect(tryAsNobody()).toBe("13"); // EACCES
      chmodSync(path.join(dir, "admin"), 0o755);
      try {
        expect(tryAsNobody()).toBe("13");
      } finally {
        chmodSync(path.join(dir, "admin"), 0o700);
      }
    },
  );

  it("keys create and list run in the server: the new key works over HTTP at once, and revoke takes effect at once", async () => {
    const created = await runCli(["keys", "create", "--plan", "starter", "--name", "ci", "--json"], env);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ plan: "starter", credit_balance: 5000, key: expect.stringMatching(/^osk_/) });
    const res = await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": key.key } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(key.account_id);

    const listed = await runCli(["keys", "list", "--json"], env);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { id: string; prefix: string; account_id: string }[];
    expect(rows.map((r) => r.id)).toContain(key.key_id);
    expect(rows.map((r) => r.prefix)).toContain(firstKey.slice(0, 12));

    const revoked = await runCli(["keys", "revoke", key.prefix], env);
    expect(revoked).toMatchObject({ code: 0, stderr: "", stdout: `Revoked key ${key.key_id} (${key.prefix}).\n` });
    expect((await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": key.key } })).status).toBe(401);
  }, 120_000);

  it("the webhook secret is shown and rotated without stopping the server", async () => {
    const account = JSON.parse((await runCli(["accounts", "list", "--json"], env)).stdout)[0].id as string;
    const shown = await runCli(["accounts", "webhook-secret", account, "--json"], env);
    expect(shown.code).toBe(0);
    const before = JSON.parse(shown.stdout).webhook_secret as string;
    expect(before).toMatch(/^whsec_/);
    const rotated = await runCli(["accounts", "webhook-secret", account, "--rotate"], env);
    expect(rotated.code).toBe(0);
    const after = rotated.stdout.split("\n")[1] as string;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    const again = JSON.parse((await runCli(["accounts", "webhook-secret", account, "--json"], env)).stdout);
    expect(again).toEqual({ account_id: account, webhook_secret: after, rotated: false });
  }, 120_000);

  it("values given as - are read from the CLI's standard input; relative paths are the CLI's", async () => {
    const account = JSON.parse((await runCli(["accounts", "list", "--json"], env)).stdout)[0].id as string;
    const added = await runCli(
      ["vault", "add", account, "--vault", "work", "--label", "site", "--domains", "example.com"].concat([
        "--field",
        "username=-",
        "--field",
        "password=-",
        "--json",
      ]),
      env,
      { input: "alice\nhunter2\n" },
    );
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ label: "site", domains: ["example.com"] });
    expect(added.stdout).not.toContain("hunter2");
    const short = await runCli(
      ["vault", "add", account, "--vault", "work", "--label", "x", "--domains", "a.com", "--field", "password=-"],
      env,
      { input: "" },
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/^osprey: standard input ended before the value for/);

    const jsonl = path.join(dir, "..", "docs.jsonl");
    writeFileSync(jsonl, `${JSON.stringify({ url: "https://docs.example/a", title: "Alpha", text: "alpha beta gamma" })}\n`);
    const imported = await runCli(["index", "import", "--jsonl", path.relative(REPO_ROOT, jsonl), "--json"], env);
    expect(imported.stderr).toBe("");
    expect(JSON.parse(imported.stdout)).toMatchObject({ lines: 1, inserted: 1 });
    expect(JSON.parse((await runCli(["index", "count", "--json"], env)).stdout)).toEqual({ documents: 1 });
  }, 120_000);

  it("serve, migrate and vault rekey are refused with the reason; the server carries on", async () => {
    const migrate = await runCli(["migrate"], env);
    expect(migrate.code).toBe(1);
    expect(migrate.stdout).toBe("");
    expect(migrate.stderr).toMatch(/^osprey: migrate does not run through the running server \(pid \d+\)/);
    const rekey = await runCli(["vault", "rekey"], env);
    expect(rekey.code).toBe(1);
    expect(rekey.stderr).toMatch(/^osprey: vault rekey does not run through the running server .*Stop the server/);
    const serve = await runCli(["serve"], env, { timeoutMs: 240_000 });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`is in use by another Osprey process (pid ${server.pid}, "serve")`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 300_000);

  it("bad input on the socket answers an error frame and never takes the server down", async () => {
    const file = adminSocketPath(dir);
    const errorThenExit = (frames: unknown[], pattern: RegExp, code = 2) => {
      expect(frames).toHaveLength(2);
      expect((frames[0] as { err: string }).err).toMatch(pattern);
      expect(frames[1]).toEqual({ exit: code });
    };
    errorThenExit(await rawExchange(file, "this is not json\n"), /^osprey: admin socket: a frame is not JSON/);
    errorThenExit(await rawExchange(file, "[1,2]\n"), /the request must be a JSON object/);
    errorThenExit(
      await rawExchange(file, `${JSON.stringify({ v: 99, argv: ["keys", "list"], cwd: "/", stdin_tty: false })}\n`),
      /protocol version must be 1/,
    );
    errorThenExit(await rawExchange(file, `${JSON.stringify({ v: 1, argv: [], cwd: "/", stdin_tty: false })}\n`), /argv must be/);
    errorThenExit(
      await rawExchange(file, `${JSON.stringify({ v: 1, argv: [1], cwd: "/", stdin_tty: false })}\n`),
      /argv must be/,
    );
    errorThenExit(
      await rawExchange(file, `${JSON.stringify({ v: 1, argv: ["keys"], cwd: "rel", stdin_tty: false })}\n`),
      /cwd must be/,
    );
    // 2 MiB without a newline: refused once it passes the 1 MiB frame limit.
    errorThenExit(await rawExchange(file, Buffer.alloc(2 << 20, 0x61)), /a frame is larger than 1048576 bytes/);
    // A command the CLI does not know: its usage error, as the CLI would print it.
    const unknown = await rawExchange(file, `${JSON.stringify({ v: 1, argv: ["bogus"], cwd: "/", stdin_tty: false })}\n`);
    expect((unknown[0] as { err: string }).err).toMatch(/^osprey: unknown command "bogus"\n\nUsage:/);
    expect(unknown.at(-1)).toEqual({ exit: 2 });
    // Half a request, then the client hangs up: nothing to answer, nothing breaks.
    expect(await rawExchange(file, '{"v":1,"argv":["ke', { end: true })).toEqual([]);
    // Frames after the request that are not stdin: the command is cut off with an error.
    const stray = await rawExchange(
      file,
      `${JSON.stringify({ v: 1, argv: ["keys", "list", "--json"], cwd: "/", stdin_tty: false })}\n{"hello":1}\n`,
    );
    expect(stray.some((f) => /must be \{stdin\} or \{stdin_end\}/.test((f as { err?: string }).err ?? ""))).toBe(true);

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const listed = await runCli(["keys", "list", "--json"], env);
    expect(listed.code).toBe(0);
    expect(server.stderr()).not.toMatch(/uncaught exception/);
  }, 60_000);

  it("prints exactly what the CLI prints without a server (output and exit code)", async () => {
    const account = JSON.parse((await runCli(["accounts", "list", "--json"], env)).stdout)[0].id as string;
    const cases = [
      ["keys", "list", "--json"],
      ["accounts", "webhook-secret", account, "--json"],
      ["accounts", "show", "acct_missing"],
      ["keys", "bogus"],
    ];
    const forwarded = [];
    for (const args of cases) forwarded.push(outcome(await runCli(args, env)));
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(adminSocketPath(dir))).toBe(false);
    const direct = [];
    for (const args of cases) direct.push(outcome(await runCli(args, env, { timeoutMs: 180_000 })));
    expect(forwarded).toEqual(direct);
    expect(direct.map((d) => d.code)).toEqual([0, 0, 1, 2]);
  }, 900_000);
});

describe("a server that stops while a command runs, and the socket it leaves", () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dir = dataDir();
    // A short shutdown budget: a command still waiting when SIGTERM comes is cut after it.
    env = { ...serverEnv(dir), OSPREY_SHUTDOWN_TIMEOUT_MS: "2000" };
  });

  /** `osprey vault add ... --field password=-` with a standard input that stays open: it waits in the server. */
  function waitingCommand(account: string) {
    const child = spawn(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", CLI_PATH, "vault", "add", account, "--vault", "v", "--label", "l"].concat([
        "--domains",
        "a.com",
        "--field",
        "password=-",
      ]),
      { cwd: REPO_ROOT, env: childEnv(env), stdio: ["pipe", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
      child.once("close", (code) => resolve({ code, stderr })),
    );
    return { child, exited };
  }

  it("SIGKILL mid-command: the CLI says the server stopped (no hang); the stale socket is cleared by the CLI and the next server", async () => {
    const server = await startServer({ ...env, PORT: "0" }, { timeoutMs: 300_000 });
    const account = JSON.parse((await runCli(["accounts", "list", "--json"], env)).stdout)[0].id as string;
    const { child, exited } = waitingCommand(account);
    await server.waitForStderr(/CLI command through the admin socket.*command="vault add"/, 60_000);
    await server.stop("SIGKILL");
    const result = await exited;
    child.stdin.destroy();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^osprey: the server stopped before the command finished \(admin socket .*osprey\.sock\)/);
    expect(lstatSync(adminSocketPath(dir)).isSocket()).toBe(true);

    // The killed server's socket and lock are left behind: the CLI opens the database itself.
    const direct = await runCli(["accounts", "list", "--json"], env, { timeoutMs: 180_000 });
    expect(direct.stderr).toBe("");
    expect(JSON.parse(direct.stdout)[0].id).toBe(account);

    // The next server removes the dead socket and listens again.
    const next = await startServer({ ...env, PORT: "0" }, { timeoutMs: 300_000 });
    const socket = lstatSync(adminSocketPath(dir));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect((await runCli(["accounts", "list", "--json"], env)).code).toBe(0);

    // SIGTERM mid-command: the command gets the shutdown budget, then its CLI is told.
    const waiting = waitingCommand(account);
    await next.waitForStderr(/(CLI command through the admin socket.*){2}/s, 60_000);
    expect(await next.stop("SIGTERM")).toBe(0);
    const cut = await waiting.exited;
    waiting.child.stdin.destroy();
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/the server stopped before the command finished/);
  }, 1_200_000);
});

describe("where the socket cannot be made safely", () => {
  const logger = createLogger("error");
  const never = new Promise<AdminHandler>(() => {});

  it("a file, a link or a live listener at the socket's path is left alone (AdminSocketError)", async () => {
    const dir = dataDir();
    mkdirSync(path.join(dir, "admin"), { mode: 0o700 });
    const file = adminSocketPath(dir);
    writeFileSync(file, "not a socket");
    await expect(listenAdminSocket({ dataDir: dir, logger, handler: never })).rejects.toThrow(/exists and is not a socket/);
    expect(readFileSync(file, "utf8")).toBe("not a socket");
    rmSync(file);
    symlinkSync("/tmp", file);
    await expect(listenAdminSocket({ dataDir: dir, logger, handler: never })).rejects.toThrow(/exists and is not a socket/);
    rmSync(file);
    // Someone answers there: not ours to take.
    const other = createServer(() => {});
    await new Promise<void>((resolve) => other.listen(file, resolve));
    try {
      await expect(listenAdminSocket({ dataDir: dir, logger, handler: never })).rejects.toThrow(/another process answers/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    // A link where the folder goes.
    const linked = dataDir();
    symlinkSync(dir, path.join(linked, "admin"));
    await expect(listenAdminSocket({ dataDir: linked, logger, handler: never })).rejects.toThrow(/is not a folder/);
  });

  it("a folder left too open is narrowed to 0700; a dead socket is replaced", async () => {
    const dir = dataDir();
    mkdirSync(path.join(dir, "admin"), { mode: 0o755 });
    chmodSync(path.join(dir, "admin"), 0o755);
    const dead = createServer(() => {});
    await new Promise<void>((resolve) => dead.listen(adminSocketPath(dir), resolve));
    // Closing a net.Server removes its file; a copy of the inode is what a killed process leaves.
    const stale = `${adminSocketPath(dir)}.kept`;
    linkSync(adminSocketPath(dir), stale);
    await new Promise((resolve) => dead.close(resolve));
    renameSync(stale, adminSocketPath(dir));
    expect(lstatSync(adminSocketPath(dir)).isSocket()).toBe(true);
    const admin = await listenAdminSocket({ dataDir: dir, logger, handler: never });
    try {
      expect(lstatSync(path.join(dir, "admin")).mode & 0o777).toBe(0o700);
      expect(lstatSync(adminSocketPath(dir)).mode & 0o777).toBe(0o600);
    } finally {
      await admin.close(0);
    }
    expect(existsSync(adminSocketPath(dir))).toBe(false);
  });

  it("a server holding the data dir without a socket: the CLI says so after a moment instead of waiting", async () => {
    const dir = dataDir();
    // This test process stands for a live server that holds the lock.
    writeFileSync(path.join(dir, "osprey.lock"), JSON.stringify({ pid: process.pid, command: "serve" }));
    const r = await runCli(["keys", "list"], { OSPREY_DATA_DIR: dir }, { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      new RegExp(
        `^osprey: the data directory .* is in use by another Osprey process \\(pid ${process.pid}, "serve"\\) and its admin socket .* does not answer`,
      ),
    );
  });
});
