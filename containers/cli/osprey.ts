#!/usr/bin/env -S node --experimental-strip-types --disable-warning=ExperimentalWarning
/**
 * The operator's CLI, `npx osprey <command>`. On the embedded database (PGlite) a running server
 * holds the data dir, so a command is sent to that server through its admin socket
 * (forward.ts) and runs there; with no server, or against Postgres (DATABASE_URL), the CLI opens
 * the database itself. Every module loads only once the command needs it: usage and
 * configuration errors answer at once, and a forwarded command loads neither the database nor
 * the command's code.
 */
import type { DataDirLock } from "../local/data-dir-lock.ts";
import { installModuleHooks, preferBaselineWasm } from "./module-hooks.ts";
import type { CommandIo } from "./run-command.ts";
import { COMMANDS, usage } from "./usage.ts";

installModuleHooks();

const out = (line: string) => process.stdout.write(`${line}\n`);
const fail = (message: string, code: number) => {
  process.stderr.write(`osprey: ${message}\n`);
  process.exitCode = code;
};

/** Commands that may go to a running server (the rest need the data dir to themselves). */
const FORWARDED = new Set(["migrate", "keys", "accounts", "index", "vault"]);

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    out(usage());
    if (!command) process.exitCode = 2;
    return;
  }
  // The configuration (zod) loads only past the usage text, and the command's modules only when
  // this process runs it (not when the server does).
  const [{ loadConfig }, { UsageError }] = await Promise.all([import("../../functions/config/config.ts"), import("./format.ts")]);
  if (!(COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown command "${command}"`);
  const config = loadConfig();
  let lock: DataDirLock | undefined;
  if (config.database.driver === "pglite" && FORWARDED.has(command)) {
    const { forwardOrLock } = await import("./forward.ts");
    const stdio = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
    const held = await forwardOrLock(config.dataDir, argv, stdio, process.cwd());
    if ("code" in held) {
      process.exitCode = held.code;
      return;
    }
    lock = held.lock;
  }
  if (command === "serve") {
    if (args.length > 0) throw new UsageError("serve takes no arguments; configure it with environment variables");
    const [{ startServer }, { remoteCommandHandler }] = await Promise.all([import("../local/server.ts"), import("./remote.ts")]);
    return startServer(config, {
      print: (s) => process.stdout.write(s),
      adminHandler: (runtime) => remoteCommandHandler(config, runtime),
    });
  }
  if (command === "worker") {
    if (args.length > 0) throw new UsageError("worker takes no arguments; configure it with environment variables");
    const { startWorker } = await import("../local/worker-main.ts");
    return startWorker(config, { print: (s) => process.stdout.write(s) });
  }
  preferBaselineWasm();
  const [{ openRuntime }, { runCommand }] = await Promise.all([import("../local/runtime.ts"), import("./run-command.ts")]);
  // An import or a crawl runs for minutes: PGlite's full buffer pool makes it ~25% faster (20,000
  // documents: 685-729 docs/s against 514-541 with the short-lived 16 MB), for 0.5 s more start.
  const longRunning = command === "index" && (args[0] === "import" || args[0] === "add");
  const runtime = await openRuntime(config, `osprey ${command}`, { lock, shortLived: !longRunning });
  const io: CommandIo = {
    out,
    err: (line) => process.stderr.write(`${line}\n`),
    input: process.stdin,
    cwd: process.cwd(),
  };
  try {
    process.exitCode = await runCommand(config, runtime, argv, io);
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  const { describeFailure } = await import("./run-command.ts");
  const failure = describeFailure(err);
  fail(failure.message, failure.code);
});
