import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import type { Logger } from "../../functions/lib/logger.ts";
import {
  ADMIN_DIR,
  adminSocketPath,
  encodeFrame,
  frameReader,
  MAX_FRAME_BYTES,
  parseCommandRequest,
  type ServerFrame,
} from "./admin-protocol.ts";

/**
 * The server's admin socket: a Unix socket in the data dir through which a CLI beside the running
 * server (which holds the embedded database's lock) has its commands run here instead.
 *
 * Who may connect is decided by file permissions alone: the socket sits in `<data dir>/admin`, a
 * folder of this user with mode 0700, and is itself 0600, so only this user (and root) can reach
 * it. Node offers no SO_PEERCRED, so the peer's uid is not checked beyond that. It never listens
 * on TCP. A socket file left by a server that was killed is removed at the next start, once
 * nothing answers on it; anything else at that path (a file, a link) is left alone and the
 * admin socket stays off.
 */

export interface AdminCommandIo {
  /** Text for the CLI's stdout / stderr, newlines included. */
  out(text: string): void;
  err(text: string): void;
  /** A note that the command is delayed (the CLI prints it on stderr). */
  wait(text: string): void;
  /** The CLI's standard input, read only when the command asks for it. */
  input: Readable & { isTTY?: boolean };
  /** The CLI's working directory. */
  cwd: string;
  /** Aborted when the CLI went away before the command finished. */
  signal: AbortSignal;
}

/** Runs one command for a CLI and resolves with its exit code; it reports its own failures through `io`. */
export type AdminHandler = (argv: string[], io: AdminCommandIo) => Promise<number>;

export class AdminSocketError extends Error {
  override name = "AdminSocketError";
}

export interface AdminSocket {
  readonly path: string;
  /** Commands being run now. */
  active(): number;
  /**
   * Stops accepting, lets the commands in flight finish for up to `graceMs`, then cuts their
   * connections (their CLIs report that the server stopped) and removes the socket file.
   */
  close(graceMs: number): Promise<void>;
}

/** The longest path a Unix socket address holds on Linux (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** A connection that sends no request in this long is dropped. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Standard input a command may receive through the socket (it only ever reads a few secrets). */
const MAX_STDIN_BYTES = 1 << 20;
const MAX_CONCURRENT_COMMANDS = 8;

/** Makes `<dataDir>/admin` (0700) or checks an existing one: a real folder of this user, narrowed to 0700. */
function prepareFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new AdminSocketError(`${dir} is not a folder (a link or a file is refused)`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid()) {
    throw new AdminSocketError(`${dir} belongs to another user (uid ${st.uid})`);
  }
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** Whether something accepts connections on the socket file `file`. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(file);
    const done = (yes: boolean) => {
      s.destroy();
      resolve(yes);
    };
    s.setTimeout(1_000, () => done(true));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

/** Clears the way for the socket: nothing there, or a dead socket (removed). Anything else is refused. */
async function clearStaleSocket(file: string): Promise<void> {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (!st.isSocket()) throw new AdminSocketError(`${file} exists and is not a socket; remove it`);
  // This process holds the data dir's lock, so no other Osprey server can own it; still, a socket
  // someone answers on is not ours to take.
  if (await answers(file)) throw new AdminSocketError(`another process answers on ${file}`);
  unlinkSync(file);
}

/**
 * Listens on `<dataDir>/admin/osprey.sock`. Throws AdminSocketError when it cannot be made safely.
 * `handler` may settle later: the server listens as soon as it holds the data dir, and a command
 * that arrives while it is still starting waits (its CLI is told so) instead of being turned away.
 */
export async function listenAdminSocket(opts: {
  dataDir: string;
  logger: Logger;
  handler: Promise<AdminHandler>;
}): Promise<AdminSocket> {
  const file = adminSocketPath(opts.dataDir);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    throw new AdminSocketError(`${file} is longer than a Unix socket path may be (${MAX_SOCKET_PATH_BYTES} bytes)`);
  }
  prepareFolder(path.join(opts.dataDir, ADMIN_DIR));
  await clearStaleSocket(file);
  let ready: AdminHandler | null = null;
  opts.handler.then(
    (h) => {
      ready = h;
    },
    () => {},
  );
  const handle: AdminHandler = async (argv, io) => {
    if (ready) return ready(argv, io);
    io.wait("the server is still starting (its log says what it is doing); the command runs once it is ready");
    return (await opts.handler)(argv, io);
  };
  const connections = new Set<Socket>();
  let running = 0;
  const idle: Array<() => void> = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    serveConnection(socket, {
      handle,
      logger: opts.logger,
      busy: () => running >= MAX_CONCURRENT_COMMANDS,
      started: () => running++,
      finished: () => {
        running--;
        if (running === 0) for (const resolve of idle.splice(0)) resolve();
      },
    });
  });
  // The umask makes the socket 0600 from its creation (bind happens inside listen(), synchronously,
  // for a path); the chmod after is for file systems that ignore it.
  const umask = process.umask(0o177);
  try {
    server.listen(file);
  } finally {
    process.umask(umask);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.on("error", (err) => opts.logger.warn("admin socket error", { error: err }));
  chmodSync(file, 0o600);
  return {
    path: file,
    active: () => running,
    close: (graceMs) => closeServer(server, file, connections, () => running, idle, graceMs),
  };
}

async function closeServer(
  server: Server,
  file: string,
  connections: Set<Socket>,
  running: () => number,
  idle: Array<() => void>,
  graceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if (running() > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => idle.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
  for (const socket of connections) socket.destroy();
  await closed;
  try {
    unlinkSync(file);
  } catch {
    // libuv removes the file it bound when the server closes.
  }
}

interface ConnectionHooks {
  handle: AdminHandler;
  logger: Logger;
  busy(): boolean;
  started(): void;
  finished(): void;
}

/** One CLI's connection: read its request, run the command, stream its output, send the exit code. */
function serveConnection(socket: Socket, hooks: ConnectionHooks): void {
  socket.on("error", () => {});
  const send = (frame: ServerFrame) => {
    if (!socket.destroyed && socket.writable) socket.write(encodeFrame(frame));
  };
  const refuse = (message: string, code = 2) => {
    send({ err: `osprey: admin socket: ${message}\n` });
    send({ exit: code });
    socket.end();
  };
  if (hooks.busy()) {
    refuse(`the server is already running ${MAX_CONCURRENT_COMMANDS} CLI commands; try again`, 1);
    return;
  }
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());

  let input: (Readable & { isTTY?: boolean }) | null = null;
  let stdinBytes = 0;
  let stdinEnded = false;
  let commandRunning = false;
  const endInput = () => {
    if (stdinEnded || input === null) return;
    stdinEnded = true;
    input.push(null);
  };
  const abort = new AbortController();
  socket.once("close", () => {
    abort.abort();
    input?.destroy();
  });

  const onFrame = (value: unknown) => {
    if (input === null) return start(value);
    const f = value as { stdin?: unknown; stdin_end?: unknown } | null;
    if (f !== null && typeof f === "object" && typeof f.stdin === "string" && !stdinEnded) {
      stdinBytes += Buffer.byteLength(f.stdin);
      if (stdinBytes > MAX_STDIN_BYTES) return badFrame(`standard input past ${MAX_STDIN_BYTES} bytes`);
      input.push(f.stdin);
    } else if (f !== null && typeof f === "object" && f.stdin_end === true && !stdinEnded) endInput();
    else badFrame("a frame after the request must be {stdin} or {stdin_end}, and none after {stdin_end}");
  };
  // A broken frame while the command runs: the command cannot be stopped halfway, but its CLI is
  // told and cut off (its input ends, its output goes nowhere).
  const badFrame = (message: string) => {
    if (!commandRunning) return refuse(message);
    send({ err: `osprey: admin socket: ${message}\n` });
    endInput();
    socket.destroy();
  };

  const start = (value: unknown) => {
    const request = parseCommandRequest(value);
    if (typeof request === "string") return refuse(request);
    socket.setTimeout(0);
    let asked = false;
    input = Object.assign(
      new Readable({
        read() {
          if (asked) return;
          asked = true;
          send({ want_stdin: true });
        },
      }),
      { isTTY: request.stdin_tty },
    );
    commandRunning = true;
    hooks.started();
    // The command's words only (`vault add`), never its arguments: they may hold values.
    const words = request.argv.slice(0, 2).filter((w) => /^[a-z][a-z-]*$/.test(w));
    hooks.logger.info("CLI command through the admin socket", { command: words.join(" ") });
    const io: AdminCommandIo = {
      out: (text) => send({ out: text }),
      err: (text) => send({ err: text }),
      wait: (text) => send({ wait: text }),
      input,
      cwd: request.cwd,
      signal: abort.signal,
    };
    hooks
      .handle(request.argv, io)
      .catch((err: unknown) => {
        // Handlers report their own failures; this is a bug in one, kept from the process.
        hooks.logger.error("admin command failed", { command: request.argv[0], error: err });
        io.err("osprey: the server failed to run the command; see its log\n");
        return 1;
      })
      .then((code) => {
        send({ exit: code });
        socket.end();
      })
      .finally(() => {
        commandRunning = false;
        hooks.finished();
      });
  };

  socket.on(
    "data",
    frameReader(onFrame, (err) => badFrame(err.message), MAX_FRAME_BYTES),
  );
  // The CLI closed its side: before a whole request, the connection is dropped; after, its
  // standard input has ended.
  socket.on("end", () => {
    if (input === null) socket.destroy();
    else endInput();
  });
}
