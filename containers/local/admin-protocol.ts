import path from "node:path";

/**
 * The wire of the admin socket (admin-socket.ts): a CLI beside a running server sends it one
 * command and gets back what the command printed and its exit code. Frames are JSON values, one
 * per line (JSON.stringify never writes a raw newline), each at most MAX_FRAME_BYTES.
 *
 * client → server: first `{v, argv, cwd, stdin_tty}`, then `{stdin}` chunks and `{stdin_end}` once
 *                  the server asked for standard input;
 * server → client: `{out}` and `{err}` (text for stdout and stderr, newlines included),
 *                  `{want_stdin}` when the command reads `-` values, `{wait}` while the server is
 *                  still starting, and last `{exit}`; then the server ends the connection.
 */

export const ADMIN_PROTOCOL_VERSION = 1;
/** A frame past this is refused: the largest legitimate one is a command line or a stdin chunk. */
export const MAX_FRAME_BYTES = 1 << 20;
/** The socket lives in its own owner-only folder of the data dir, so its permissions are the folder's. */
export const ADMIN_DIR = "admin";
export const ADMIN_SOCKET_FILE = "osprey.sock";

export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_DIR, ADMIN_SOCKET_FILE);
}

export interface CommandRequest {
  v: typeof ADMIN_PROTOCOL_VERSION;
  argv: string[];
  /** The CLI's working directory: relative file arguments mean the same through the socket. */
  cwd: string;
  /** Whether the CLI's standard input is a terminal (commands prompt only then). */
  stdin_tty: boolean;
}

export type ClientFrame = CommandRequest | { stdin: string } | { stdin_end: true };
export type ServerFrame = { out: string } | { err: string } | { want_stdin: true } | { wait: string } | { exit: number };

export const encodeFrame = (frame: ClientFrame | ServerFrame): string => `${JSON.stringify(frame)}\n`;

export class FrameError extends Error {
  override name = "FrameError";
}

/**
 * Splits a byte stream into frames: returns the function to feed chunks to. Each complete line is
 * parsed and handed to `onFrame`; a line that is not JSON, or one that grows past MAX_FRAME_BYTES
 * before its newline, goes to `onError` once, and the reader then ignores the rest.
 */
export function frameReader(
  onFrame: (value: unknown) => void,
  onError: (err: FrameError) => void,
  maxBytes = MAX_FRAME_BYTES,
): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let failed = false;
  const fail = (message: string) => {
    failed = true;
    pending = [];
    onError(new FrameError(message));
  };
  return (chunk) => {
    let rest = chunk;
    while (!failed) {
      const nl = rest.indexOf(0x0a);
      if (nl === -1) {
        pendingBytes += rest.length;
        if (pendingBytes > maxBytes) return fail(`a frame is larger than ${maxBytes} bytes`);
        if (rest.length > 0) pending.push(rest);
        return;
      }
      if (pendingBytes + nl > maxBytes) return fail(`a frame is larger than ${maxBytes} bytes`);
      const line = Buffer.concat([...pending, rest.subarray(0, nl)]).toString("utf8");
      pending = [];
      pendingBytes = 0;
      rest = rest.subarray(nl + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return fail("a frame is not JSON");
      }
      onFrame(value);
    }
  };
}

/** A well-formed first frame, or what is wrong with it. */
export function parseCommandRequest(value: unknown): CommandRequest | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the request must be a JSON object";
  const r = value as Record<string, unknown>;
  if (r.v !== ADMIN_PROTOCOL_VERSION) {
    return `the request's protocol version must be ${ADMIN_PROTOCOL_VERSION} (is the CLI from the same release as the server?)`;
  }
  if (!Array.isArray(r.argv) || r.argv.length === 0 || r.argv.length > 1000 || !r.argv.every((a) => typeof a === "string")) {
    return "argv must be a non-empty array of strings";
  }
  if (typeof r.cwd !== "string" || !path.isAbsolute(r.cwd)) return "cwd must be an absolute path";
  if (typeof r.stdin_tty !== "boolean") return "stdin_tty must be a boolean";
  return { v: ADMIN_PROTOCOL_VERSION, argv: r.argv as string[], cwd: r.cwd, stdin_tty: r.stdin_tty };
}
