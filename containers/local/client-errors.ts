import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { errorBody } from "../../functions/http/error-handler.ts";
import { AppError } from "../../functions/lib/app-error.ts";
import { defaultIds } from "../../functions/lib/ids.ts";

/**
 * The most bytes a request's line and headers may take. Node's default (16 KiB) is below what a
 * valid search needs: GET /search carries `query` and `purpose` (2,000 characters each, which
 * percent-encoded UTF-8 makes up to 24,000 bytes each) and two lists of up to 100 domains in its
 * URL, so a query in Chinese or emoji was refused by Node itself with a bare 431 before the API
 * saw it. 128 KiB holds every valid request with room for the headers.
 */
export const MAX_HEADER_BYTES = 128 * 1024;

/** The server options that go with `answerClientErrors`. */
export const SERVER_OPTIONS = { maxHeaderSize: MAX_HEADER_BYTES };

/**
 * Requests Node's HTTP parser refuses before any handler runs (a request line and headers over
 * MAX_HEADER_BYTES, malformed HTTP) get the contract's error body (spec 7.1: INVALID_INPUT with a
 * request id, also in X-Request-ID) instead of Node's bare status line; the connection then closes.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
    const error = tooLarge
      ? new AppError("INVALID_INPUT", `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes (128 KiB).`, {
          status: 431,
        })
      : new AppError("INVALID_INPUT", "The request is not valid HTTP.");
    const requestId = defaultIds.request();
    const body = JSON.stringify(errorBody(error, requestId));
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}
