import type { Logger } from "../../functions/lib/logger.ts";

/**
 * The last line of defence of a long-running process (`serve`, `worker`): an error nobody caught
 * must not take every tenant's requests and runs down with it (issue 15: one fetch of a name with
 * no route crashed the server, and a webhook to one crashed it again at every retry).
 *
 * - A stray socket error (an 'error' event with no listener on a socket, TLS socket or DNS
 *   request: it carries `syscall` and an errno-style `code`) concerns one connection only: it is
 *   logged and the process carries on.
 * - A rejected promise nobody awaited is logged and the process carries on: the work it belonged
 *   to has already failed on its own, and Node's default (exit) would end every other request too.
 * - Any other uncaught exception may have left shared state half-written: it is logged and the
 *   process exits (1), as Node would; the supervisor (systemd, ECS) restarts it, and runs it
 *   held are recovered from the queue.
 */

const NETWORK_SYSCALLS = new Set([
  "connect",
  "read",
  "write",
  "writev",
  "shutdown",
  "getaddrinfo",
  "getnameinfo",
  "queryA",
  "queryAaaa",
  "bind",
  "send",
  "recv",
]);

/** Whether `err` is a failure of one connection (errno-style, from a socket or resolver call). */
export function isStraySocketError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { syscall, code } = err as { syscall?: unknown; code?: unknown };
  if (typeof code !== "string") return false;
  if (typeof syscall === "string") return NETWORK_SYSCALLS.has(syscall) && /^E[A-Z0-9_]+$/.test(code);
  // TLS and HTTP parser failures carry no syscall but have their own code families.
  return code.startsWith("ERR_SSL_") || code === "ECONNRESET" || code === "EPIPE" || code === "ERR_STREAM_PREMATURE_CLOSE";
}

// The error itself goes to the logger, whose serialiser keeps a failed query's parameters out.
const describe = (err: unknown) => {
  if (!(err instanceof Error)) return { error: String(err) };
  const { syscall } = err as { syscall?: unknown };
  return { error: err, syscall };
};

export interface ProcessGuard {
  /** Stray errors survived so far (tests, the status banner). */
  survived(): number;
  uninstall(): void;
}

export function installProcessGuard(logger: Logger, exit: (code: number) => void = (c) => process.exit(c)): ProcessGuard {
  let survived = 0;
  const onException = (err: unknown) => {
    if (isStraySocketError(err)) {
      survived++;
      logger.warn("a connection failed with no one listening; the process carries on", describe(err));
      return;
    }
    logger.error("uncaught exception; exiting", describe(err));
    exit(1);
  };
  const onRejection = (reason: unknown) => {
    survived++;
    logger.error("a promise was rejected and nobody handled it; the process carries on", describe(reason));
  };
  // The log streams themselves: once stderr's reader is gone (a supervisor restarted, a pipe
  // closed), every write fails with EPIPE. Unhandled, each failure would reach onException, whose
  // log line fails again: a loop that burns a core. Logs are lost then; the process carries on.
  const onLogStreamError = () => {};
  process.stdout.on("error", onLogStreamError);
  process.stderr.on("error", onLogStreamError);
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return {
    survived: () => survived,
    uninstall: () => {
      process.off("uncaughtException", onException);
      process.off("unhandledRejection", onRejection);
      process.stdout.off("error", onLogStreamError);
      process.stderr.off("error", onLogStreamError);
    },
  };
}
