#!/usr/bin/env -S node --experimental-strip-types --disable-warning=ExperimentalWarning
/**
 * The operator's CLI, `npx osprey <command>`. It works on the configured database directly, so
 * it runs while no server holds an embedded (PGlite) data directory; against Postgres
 * (DATABASE_URL) it also runs beside a live server.
 */
import { ConfigError, loadConfig } from "../../functions/config/config.ts";
import { isAppError } from "../../functions/lib/app-error.ts";
import { DataDirLockedError } from "../local/data-dir-lock.ts";
import { UsageError } from "./format.ts";
import { ACCOUNTS_USAGE, INDEX_USAGE, KEYS_USAGE, VAULT_USAGE } from "./usage.ts";

const USAGE = `Usage:
osprey serve                 start the server (same as npm start)
osprey worker                run automation runs and webhooks only (beside a server with OSPREY_WORKER=off)
osprey migrate               apply pending database migrations
${KEYS_USAGE}
${ACCOUNTS_USAGE}
${INDEX_USAGE}
${VAULT_USAGE}

Configuration comes from the environment (see README): OSPREY_DATA_DIR, DATABASE_URL, ...`;

const out = (line: string) => process.stdout.write(`${line}\n`);
const fail = (message: string, code: number) => {
  process.stderr.write(`osprey: ${message}\n`);
  process.exitCode = code;
};

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    out(USAGE);
    if (!command) process.exitCode = 2;
    return;
  }
  if (!["serve", "worker", "migrate", "keys", "accounts", "index", "vault"].includes(command))
    throw new UsageError(`unknown command "${command}"`);
  const config = loadConfig();
  // The database, server and command modules load only once a command needs them, so usage and
  // configuration errors answer at once.
  if (command === "serve") {
    if (args.length > 0) throw new UsageError("serve takes no arguments; configure it with environment variables");
    const { startServer } = await import("../local/server.ts");
    return startServer(config, { print: (s) => process.stdout.write(s) });
  }
  if (command === "worker") {
    if (args.length > 0) throw new UsageError("worker takes no arguments; configure it with environment variables");
    const { startWorker } = await import("../local/worker-main.ts");
    return startWorker(config, { print: (s) => process.stdout.write(s) });
  }
  const { openRuntime } = await import("../local/runtime.ts");
  const runtime = await openRuntime(config, `osprey ${command}`);
  try {
    if (command === "migrate") out(`Migrations applied to ${runtime.database.description}.`);
    else if (command === "keys") await (await import("./commands/keys.ts")).keysCommand(runtime.services, args, out);
    else if (command === "index") {
      const err = (line: string) => process.stderr.write(`${line}\n`);
      await (await import("./commands/index.ts")).indexCommand(runtime.database.db, args, { out, err });
    } else if (command === "vault") {
      const err = (line: string) => process.stderr.write(`${line}\n`);
      const [{ vaultCommand }, { vaultKeyring }, { systemClock }] = await Promise.all([
        import("./commands/vault.ts"),
        import("../local/vault-key.ts"),
        import("../../functions/lib/clock.ts"),
      ]);
      const deps = { db: runtime.database.db, services: runtime.services, clock: systemClock };
      await vaultCommand({ ...deps, keyring: () => vaultKeyring(config) }, args, { out, err, input: process.stdin });
    } else await (await import("./commands/accounts.ts")).accountsCommand(runtime.services, args, out);
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) return fail(`${err.message}\n\n${USAGE}`, 2);
  if (err instanceof ConfigError || err instanceof DataDirLockedError) return fail(err.message, 1);
  if (isAppError(err)) return fail(err.message, 1);
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) {
    return fail(`${err.message}\n\n${USAGE}`, 2);
  }
  return fail(err instanceof Error ? err.message : String(err), 1);
});
