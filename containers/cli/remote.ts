/**
 * The server's side of a forwarded CLI command: what `osprey serve` runs for a CLI that found the
 * data dir locked by it and connected to its admin socket. The command runs on the server's open
 * database and configuration, and answers with the lines and exit code the CLI would have printed
 * itself (run-command.ts is shared).
 */
import type { Config } from "../../functions/config/config.ts";
import type { AdminHandler } from "../local/admin-socket.ts";
import type { Runtime } from "../local/runtime.ts";
import { describeFailure, runCommand } from "./run-command.ts";

/** Why a command is not run through the server, or null when it may be. */
export function refusedRemotely(argv: string[], serverPid: number): string | null {
  const [command, sub] = argv;
  if (command === "serve" || command === "worker") {
    return `a server (pid ${serverPid}) is already running on this data directory; ${command === "worker" ? "its in-process worker runs the runs (OSPREY_WORKER=off and a Postgres DATABASE_URL to split them)" : "stop it first, or give this one another OSPREY_DATA_DIR"}`;
  }
  if (command === "migrate") {
    return (
      `migrate does not run through the running server (pid ${serverPid}): the server applied the migrations when it started. ` +
      "To apply a newer release's migrations, stop the server and start the new one (or run osprey migrate while it is stopped)."
    );
  }
  if (command === "vault" && sub === "rekey") {
    return (
      `vault rekey does not run through the running server (pid ${serverPid}): it re-seals every secret under the key of the process that runs it, ` +
      "and the server keeps the key it started with. Stop the server, run osprey vault rekey with the new OSPREY_VAULT_KEY and OSPREY_VAULT_KEY_PREVIOUS, then start the server with them."
    );
  }
  return null;
}

export function remoteCommandHandler(config: Config, runtime: Runtime): AdminHandler {
  return async (argv, io) => {
    const refused = refusedRemotely(argv, process.pid);
    if (refused) {
      io.err(`osprey: ${refused}\n`);
      return 1;
    }
    try {
      return await runCommand(config, runtime, argv, {
        out: (line) => io.out(`${line}\n`),
        err: (line) => io.err(`${line}\n`),
        input: io.input,
        cwd: io.cwd,
      });
    } catch (err) {
      const failure = describeFailure(err);
      io.err(`osprey: ${failure.message}\n`);
      return failure.code;
    }
  };
}
