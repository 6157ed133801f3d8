/**
 * One CLI command on an open runtime, and how its failure reads: shared by the CLI process
 * (osprey.ts, which opened the database itself) and the server's admin socket (remote.ts, which
 * runs the command in the server for a CLI beside it), so both print the same lines and exit codes.
 */
import { type Config, ConfigError } from "../../functions/config/config.ts";
import { isAppError } from "../../functions/lib/app-error.ts";
import { DataDirLockedError } from "../local/data-dir-lock.ts";
import type { Runtime } from "../local/runtime.ts";
import { UsageError } from "./format.ts";
import { usage } from "./usage.ts";

export interface CommandIo {
  /** One line of stdout (the newline is added). */
  out(line: string): void;
  /** One line of stderr (progress, per-line problems). */
  err(line: string): void;
  /** Where values given as `-` are read from. */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The directory relative file arguments (--jsonl, --file) are resolved against. */
  cwd: string;
}

/**
 * Runs a database command (migrate, keys, accounts, index, vault) on `runtime` and resolves with
 * its exit code (a command that fails without an error, such as an `index add` that indexed
 * nothing, gives 1). Throws what the command throws.
 */
export async function runCommand(config: Config, runtime: Runtime, argv: string[], io: CommandIo): Promise<number> {
  const [command, ...args] = argv;
  const { out, err } = io;
  if (command === "migrate") {
    out(`Migrations applied to ${runtime.database.description}.`);
    return 0;
  }
  if (command === "keys") {
    await (await import("./commands/keys.ts")).keysCommand(runtime.services, args, out);
    return 0;
  }
  if (command === "accounts") {
    await (await import("./commands/accounts.ts")).accountsCommand(runtime.services, args, out);
    return 0;
  }
  if (command === "index") {
    const { indexCommand } = await import("./commands/index.ts");
    return indexCommand(runtime.database.db, args, { out, err, cwd: io.cwd });
  }
  if (command === "vault") {
    const [{ vaultCommand }, { vaultKeyring }, { systemClock }] = await Promise.all([
      import("./commands/vault.ts"),
      import("../local/vault-key.ts"),
      import("../../functions/lib/clock.ts"),
    ]);
    const deps = { db: runtime.database.db, services: runtime.services, clock: systemClock };
    await vaultCommand({ ...deps, keyring: () => vaultKeyring(config) }, args, { out, err, input: io.input });
    return 0;
  }
  throw new UsageError(command ? `unknown command "${command}"` : "a command is needed");
}

/** A failed command as the CLI reports it: the text after `osprey: ` on stderr, and the exit code. */
export function describeFailure(err: unknown): { message: string; code: number } {
  if (err instanceof UsageError) return { message: `${err.message}\n\n${usage()}`, code: 2 };
  if (err instanceof ConfigError || err instanceof DataDirLockedError) return { message: err.message, code: 1 };
  if (isAppError(err)) return { message: err.message, code: 1 };
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) {
    return { message: `${err.message}\n\n${usage()}`, code: 2 };
  }
  return { message: err instanceof Error ? err.message : String(err), code: 1 };
}
