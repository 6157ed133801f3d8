import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Renderer, RenderResult } from "../../functions/fetch/renderer.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { checkUrl, effectivePort, type Resolver, resolvePublic } from "../../functions/net/address-policy.ts";

/**
 * The browser container's internal render endpoint: the edge's fetch (functions/fetch/remote-renderer.ts)
 * posts `{url, timeout_ms}` here with a shared secret, and gets a RenderResult back as JSON. It is
 * internal (a private subnet; the secret is the second lock): it renders with the container's
 * Chromium pool and its egress proxy, and applies the container's own address policy, since the
 * caller's `isAllowed` is a function and cannot travel.
 */

export const RENDER_PATH = "/internal/render";
/** A render request is a URL and a number; anything bigger is not one. */
const MAX_BODY_BYTES = 16 * 1024;
/** Spec 4.6: a fetch's per-URL timeout is at most 120 s. */
const MAX_TIMEOUT_MS = 120_000;

const RenderWireSchema = z.object({
  url: z.string().max(8192),
  timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS),
});

export interface RenderEndpointOptions {
  renderer: Renderer;
  /** The shared secret; callers send `Authorization: Bearer <secret>`. */
  secret: string;
  allowPrivateHosts: AllowedHost[];
  logger: Logger;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Tests resolve names through this; production uses the system resolver. */
  resolver?: Resolver;
}

export interface RenderEndpoint {
  url: string;
  close(): Promise<void>;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant time in the secret's content and length: both sides are hashed to 32 bytes first. */
function secretMatches(header: string | undefined, expected: Buffer): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  return timingSafeEqual(digest(m?.[1] ?? ""), expected) && m !== null;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startRenderEndpoint(opts: RenderEndpointOptions): Promise<RenderEndpoint> {
  const expected = digest(opts.secret);
  const allow = opts.allowPrivateHosts;
  const isAllowed = async (raw: string): Promise<boolean> => {
    const checked = checkUrl(raw, allow);
    if (!checked.ok) return false;
    try {
      await resolvePublic(checked.url.hostname, effectivePort(checked.url), allow, opts.resolver);
      return true;
    } catch {
      return false;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.url !== RENDER_PATH) return send(res, 404, { error: "not found" });
    if (req.method !== "POST") return send(res, 405, { error: "POST only" });
    if (!secretMatches(req.headers.authorization, expected)) return send(res, 401, { error: "unauthorized" });
    const raw = await readBody(req);
    if (raw === null) return send(res, 413, { error: "body too large" });
    let parsed: z.infer<typeof RenderWireSchema>;
    try {
      parsed = RenderWireSchema.parse(JSON.parse(raw));
    } catch {
      return send(res, 400, { error: "expected {url, timeout_ms}" });
    }
    if (!(await isAllowed(parsed.url))) {
      return send(res, 200, { ok: false, error: "invalid_url", detail: "the URL is not allowed by the address policy" });
    }
    // The caller hanging up (its deadline passed) gives the render up and frees its context.
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const result: RenderResult = await opts.renderer.render({
      url: parsed.url,
      timeoutMs: parsed.timeout_ms,
      signal: gone.signal,
      isAllowed,
    });
    if (!gone.signal.aborted) send(res, 200, result);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      opts.logger.error("render endpoint failed", { error: err });
      if (!res.headersSent) send(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "0.0.0.0", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const shown = address === "0.0.0.0" || address === "::" ? "127.0.0.1" : address;
  return {
    url: `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}${RENDER_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
