import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";

/**
 * Lambda function-URL invocations in process: the payload 2.0 event a function URL sends, and the
 * `awslambda` globals the Node.js runtime provides to a RESPONSE_STREAM handler (streamifyResponse,
 * HttpResponseStream.from), so that a handler built with hono/aws-lambda's streamHandle runs as
 * it would on Lambda. The runtime writes the response metadata as a JSON prelude; here it is kept
 * on the stream object and read back as status and headers.
 */

export interface FunctionUrlEvent {
  version: "2.0";
  routeKey: "$default";
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: "$default";
    stage: "$default";
    time: string;
    timeEpoch: number;
  };
  body?: string;
  isBase64Encoded: boolean;
}

const URL_ID = "abcdefghijklmnopqrstuvwxyz012345";

/** The event a function URL (https://<id>.lambda-url.us-east-1.on.aws) sends for one request. */
export function functionUrlEvent(
  method: string,
  target: string,
  opts: { headers?: Record<string, string>; json?: unknown } = {},
): FunctionUrlEvent {
  const url = new URL(target, "https://x.invalid");
  const headers: Record<string, string> = {
    host: `${URL_ID}.lambda-url.us-east-1.on.aws`,
    "user-agent": "vitest",
    "x-forwarded-proto": "https",
    "x-forwarded-for": "203.0.113.7",
    "x-forwarded-port": "443",
    "x-amzn-trace-id": `Root=1-${Date.now().toString(16)}-${randomUUID().replaceAll("-", "").slice(0, 24)}`,
  };
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  }
  const now = new Date();
  const query = Object.fromEntries(url.searchParams);
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: "anonymous",
      apiId: URL_ID,
      domainName: `${URL_ID}.lambda-url.us-east-1.on.aws`,
      domainPrefix: URL_ID,
      http: { method, path: url.pathname, protocol: "HTTP/1.1", sourceIp: "203.0.113.7", userAgent: "vitest" },
      requestId: randomUUID(),
      routeKey: "$default",
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  };
}

interface Metadata {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
}

class ResponseStream extends Writable {
  chunks: Buffer[] = [];
  metadata: Metadata | null = null;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }
}

/** Installs the runtime's `awslambda` globals (idempotent). */
export function installLambdaRuntime(): void {
  const g = globalThis as { awslambda?: { streamifyResponse?: unknown; HttpResponseStream?: unknown } };
  if (typeof g.awslambda?.streamifyResponse === "function") return;
  g.awslambda = {
    streamifyResponse: (fn: unknown) => fn,
    HttpResponseStream: {
      from(stream: ResponseStream, metadata: Metadata) {
        stream.metadata = metadata;
        return stream;
      },
    },
  };
}

export type StreamingHandler = (event: FunctionUrlEvent, stream: Writable, context: unknown) => Promise<void>;

export interface LambdaResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/** Invokes a streaming handler with one event and collects what it streamed. */
export async function invoke(handler: unknown, event: FunctionUrlEvent): Promise<LambdaResponse> {
  const stream = new ResponseStream();
  const finished = new Promise<void>((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
  const context = {
    awsRequestId: event.requestContext.requestId,
    functionName: "osprey-test",
    getRemainingTimeInMillis: () => 900_000,
  };
  await (handler as StreamingHandler)(event, stream, context);
  await finished;
  const body = Buffer.concat(stream.chunks).toString("utf8");
  return {
    status: stream.metadata?.statusCode ?? 0,
    headers: stream.metadata?.headers ?? {},
    body,
    json: <T>() => JSON.parse(body) as T,
  };
}
