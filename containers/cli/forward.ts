/**
 * The CLI's side of the admin socket (containers/local/admin-socket.ts): when a server is running
 * on the embedded database's data dir, the command is sent to it and its output and exit code are
 * relayed as if this process had run it. Loads nothing but node:net, so a forwarded command
 * costs little more than starting Node.
 */
import { connect } from "node:net";
import { ADMIN_PROTOCOL_VERSION, adminSocketPath, encodeFrame, frameReader, type ServerFrame } from "../local/admin-protocol.ts";
import { type DataDirLock, DataDirLockedError, lockDataDir } from "../local/data-dir-lock.ts";

export interface Stdio {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** No server answers on the socket: the CLI opens the database itself. */
const NO_SERVER = new Set(["ENOENT", "ECONNREFUSED", "ENOTSOCK", "ENOTDIR"]);

/**
 * Runs `argv` in the server listening on `<dataDir>/admin/osprey.sock`. Resolves with the exit
 * code, or null when no server answers there (no socket, or a stale one).
 */
export function forwardToServer(dataDir: string, argv: string[], stdio: Stdio, cwd: string): Promise<number | null> {
  const file = adminSocketPath(dataDir);
  return new Promise((resolve) => {
    const socket = connect(file);
    let connected = false;
    let exitCode: number | null = null;
    let readingStdin = false;
    const fail = (message: string) => {
      stdio.stderr.write(`osprey: ${message}\n`);
      exitCode = 1;
      socket.destroy();
    };
    const stopStdin = () => {
      if (!readingStdin) return;
      readingStdin = false;
      stdio.stdin.removeListener("data", onStdin);
      stdio.stdin.removeListener("end", onStdinEnd);
      stdio.stdin.pause();
    };
    const onStdin = (chunk: Buffer | string) => {
      socket.write(encodeFrame({ stdin: chunk.toString() }));
    };
    const onStdinEnd = () => {
      stopStdin();
      socket.write(encodeFrame({ stdin_end: true }));
    };
    const onFrame = (value: unknown) => {
      const f = value as ServerFrame;
      if (typeof f !== "object" || f === null) return fail("the server sent something that is not a frame");
      if ("out" in f && typeof f.out === "string") stdio.stdout.write(f.out);
      else if ("err" in f && typeof f.err === "string") stdio.stderr.write(f.err);
      else if ("wait" in f && typeof f.wait === "string") stdio.stderr.write(`osprey: ${f.wait}\n`);
      else if ("want_stdin" in f && !readingStdin) {
        readingStdin = true;
        stdio.stdin.setEncoding?.("utf8");
        stdio.stdin.on("data", onStdin);
        stdio.stdin.once("end", onStdinEnd);
        stdio.stdin.resume();
      } else if ("exit" in f && typeof f.exit === "number") exitCode = f.exit;
    };
    socket.on(
      "data",
      frameReader(onFrame, (err) => fail(`the server's answer was garbled (${err.message})`)),
    );
    socket.once("connect", () => {
      connected = true;
      socket.write(encodeFrame({ v: ADMIN_PROTOCOL_VERSION, argv, cwd, stdin_tty: stdio.stdin.isTTY === true }));
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (connected) return; // "close" follows and tells what happened.
      if (NO_SERVER.has(err.code ?? "")) {
        socket.destroy();
        resolve(null);
        return;
      }
      const why = err.code === "EACCES" ? "permission denied: it belongs to another user" : err.message;
      stdio.stderr.write(`osprey: cannot reach the server's admin socket ${file} (${why})\n`);
      resolve(1);
    });
    socket.once("close", () => {
      stopStdin();
      if (!connected) return;
      if (exitCode === null) {
        stdio.stderr.write(
          `osprey: the server stopped before the command finished (admin socket ${file}); ` +
            "whether it took effect is unknown: check, then run it again\n",
        );
        resolve(1);
        return;
      }
      resolve(exitCode);
    });
  });
}

/** How long a CLI waits for the admin socket of a server that holds the lock but does not answer yet. */
const SOCKET_WAIT_MS = 2_000;

/**
 * On the embedded database: runs the command in the server holding the data dir when one answers
 * (`{ code }`), else takes the data dir's lock for this process (`{ lock }`), before anything heavy
 * is loaded. A server that holds the lock has its socket up within milliseconds (it listens right
 * after locking), so the socket is retried for a moment before the lock error is final.
 */
export async function forwardOrLock(
  dataDir: string,
  argv: string[],
  stdio: Stdio,
  cwd: string,
): Promise<{ code: number } | { lock: DataDirLock }> {
  const deadline = Date.now() + SOCKET_WAIT_MS;
  for (;;) {
    const code = await forwardToServer(dataDir, argv, stdio, cwd);
    if (code !== null) return { code };
    try {
      return { lock: lockDataDir(dataDir, `osprey ${argv[0]}`) };
    } catch (err) {
      if (!(err instanceof DataDirLockedError) || err.owner.command !== "serve") throw err;
      if (Date.now() > deadline) {
        throw new DataDirLockedError(
          dataDir,
          err.owner,
          `its admin socket ${adminSocketPath(dataDir)} does not answer (see the server's log)`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
