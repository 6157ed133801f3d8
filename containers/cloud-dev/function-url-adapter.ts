import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";

/**
 * A local stand-in for a Lambda function URL in RESPONSE_STREAM invoke mode, for `npm run dev:cloud`.
 * It does what AWS does between a caller and a streaming handler, and nothing the handler could
 * lean on that AWS does not:
 *
 * - each HTTP request becomes the payload format 2.0 event a function URL sends (lower-case headers
 *   joined with commas, cookies apart, a body that is not text base64-encoded, the 6 MB request cap);
 * - the Node.js runtime's `awslambda` global: `streamifyResponse` marks the handler as streaming,
 *   and `HttpResponseStream.from` makes the stream's first bytes the JSON metadata prelude and
 *   eight NUL bytes, as the runtime does (the handler writes its body after them);
 * - the adapter then reads the streamed bytes as the function URL front end reads them: the prelude
 *   gives the status, headers and cookies, and the rest is passed on to the caller chunk by chunk,
 *   as it is written (a blocking /run, SSE).
 */

/** Function URLs refuse a larger request payload (Lambda's 6 MB invocation payload). */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;
/** The longest a Lambda invocation runs. */
const INVOCATION_MS = 15 * 60_000;
const PRELUDE_CONTENT_TYPE = "application/vnd.awslambda.http-integration-response";
const PRELUDE_SEPARATOR = Buffer.alloc(8);
/** The runtime marks a streaming handler with this symbol (its value names the mode). */
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");

interface Prelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** The response stream the runtime hands a streaming handler: a Writable with a content type. */
class LambdaResponseStream extends Writable {
  contentType = "application/octet-stream";
  private prelude: Buffer | null = null;
  private readonly sink: (chunk: Buffer) => void;
  constructor(sink: (chunk: Buffer) => void) {
    super();
    this.sink = sink;
  }
  setContentType(type: string): void {
    this.contentType = type;
  }
  /** Set by HttpResponseStream.from: written before the first body byte (or at the end, if none). */
  setPrelude(bytes: Buffer): void {
    this.prelude = bytes;
  }
  private flushPrelude(): void {
    if (this.prelude === null) return;
    const bytes = this.prelude;
    this.prelude = null;
    this.sink(bytes);
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.flushPrelude();
    this.sink(Buffer.from(chunk));
    cb();
  }
  override _final(cb: (err?: Error | null) => void): void {
    this.flushPrelude();
    cb();
  }
}

/** Installs the Node.js runtime's `awslambda` global (before a handler module is imported: streamHandle calls it at import). */
export function installStreamingRuntime(): void {
  // The AWS SDK leaves an empty `awslambda` object behind; the runtime's functions go onto it.
  const g = globalThis as { awslambda?: Record<string, unknown> };
  if (typeof g.awslambda?.streamifyResponse === "function") return;
  g.awslambda = Object.assign(g.awslambda ?? {}, {
    streamifyResponse<T extends object>(handler: T): T {
      Object.defineProperty(handler, STREAMING, { value: "response" });
      return handler;
    },
    HttpResponseStream: {
      from(stream: LambdaResponseStream, prelude: Prelude): LambdaResponseStream {
        stream.setContentType(PRELUDE_CONTENT_TYPE);
        stream.setPrelude(Buffer.concat([Buffer.from(JSON.stringify(prelude)), PRELUDE_SEPARATOR]));
        return stream;
      },
    },
  });
}

export type StreamingHandler = (event: unknown, stream: Writable, context: unknown) => Promise<unknown>;

const isText = (type: string | undefined) =>
  !type || /^text\/|^application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|x-www-form-urlencoded)\b/i.test(type);

/** The payload 2.0 event of one request, as a function URL builds it. */
export function functionUrlEvent(req: IncomingMessage, body: Buffer, host: string): Record<string, unknown> {
  const url = new URL(req.url ?? "/", "http://function-url.invalid");
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (name === "cookie") cookies = (Array.isArray(value) ? value.join("; ") : value).split(/;\s*/).filter(Boolean);
    else headers[name] = Array.isArray(value) ? value.join(",") : value;
  }
  const sourceIp = req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "127.0.0.1";
  headers["x-forwarded-for"] = headers["x-forwarded-for"] ? `${headers["x-forwarded-for"]}, ${sourceIp}` : sourceIp;
  headers["x-forwarded-proto"] = "http";
  headers["x-amzn-trace-id"] = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = new Date();
  const text = isText(headers["content-type"]);
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: "anonymous",
      apiId: "local",
      domainName: host,
      domainPrefix: host.split(".")[0],
      http: {
        method: req.method ?? "GET",
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: randomUUID(),
      routeKey: "$default",
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: text ? body.toString("utf8") : body.toString("base64") } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

/** Reads the handler's streamed bytes as the function URL front end does: prelude, then body. */
function responseWriter(res: ServerResponse, contentType: () => string): { write(chunk: Buffer): void; end(): void } {
  let head: Buffer | null = Buffer.alloc(0);
  const start = (prelude: Prelude) => {
    const headers: Record<string, string | string[]> = { ...(prelude.headers ?? {}) };
    if (prelude.cookies && prelude.cookies.length > 0) headers["set-cookie"] = prelude.cookies;
    res.writeHead(prelude.statusCode ?? 200, headers);
  };
  return {
    write(chunk) {
      if (head === null) {
        res.write(chunk);
        return;
      }
      if (contentType() !== PRELUDE_CONTENT_TYPE) {
        // A handler that streams without HttpResponseStream.from: 200 with the stream's content type.
        head = null;
        res.writeHead(200, { "content-type": contentType() });
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const at = head.indexOf(PRELUDE_SEPARATOR);
      if (at < 0) return;
      const rest = head.subarray(at + PRELUDE_SEPARATOR.length);
      start(JSON.parse(head.subarray(0, at).toString("utf8")) as Prelude);
      head = null;
      if (rest.length > 0) res.write(rest);
    },
    end() {
      if (head !== null && !res.headersSent) {
        // Nothing or only a partial prelude came: what a function URL answers for a broken stream.
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ Message: "Internal Server Error" }));
        return;
      }
      res.end();
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface FunctionUrl {
  url: string;
  close(): Promise<void>;
}

/** Serves one streaming handler as a function URL on host:port (0: a free port). */
export async function serveFunctionUrl(
  name: string,
  handler: StreamingHandler,
  opts: { host: string; port: number; onError?: (err: unknown) => void },
): Promise<FunctionUrl> {
  if ((handler as unknown as Record<symbol, unknown>)[STREAMING] !== "response") {
    throw new Error(`${name}: the handler is not wrapped in awslambda.streamifyResponse (RESPONSE_STREAM mode)`);
  }
  const invoke = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (body === null) {
      res.writeHead(413, { "content-type": "application/json" });
      res.end(JSON.stringify({ Message: "Request must be smaller than 6291456 bytes for the InvokeFunction operation" }));
      return;
    }
    const event = functionUrlEvent(req, body, req.headers.host ?? `${opts.host}`);
    const stream = new LambdaResponseStream((chunk) => out.write(chunk));
    const out = responseWriter(res, () => stream.contentType);
    // The caller hanging up ends the stream under the handler (its pipeline fails and it stops).
    stream.on("error", () => {});
    res.on("close", () => {
      if (!res.writableFinished) stream.destroy();
    });
    const started = Date.now();
    const context = {
      functionName: name,
      functionVersion: "$LATEST",
      awsRequestId: (event.requestContext as { requestId: string }).requestId,
      memoryLimitInMB: "1024",
      getRemainingTimeInMillis: () => Math.max(0, INVOCATION_MS - (Date.now() - started)),
    };
    const done = new Promise<void>((resolve) => {
      stream.once("finish", resolve);
      stream.once("close", resolve);
    });
    await handler(event, stream, context);
    await done;
    out.end();
  };
  const server: Server = createServer((req, res) => {
    invoke(req, res).catch((err: unknown) => {
      opts.onError?.(err);
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ Message: "Internal Server Error" }));
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
