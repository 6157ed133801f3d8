import { AppError } from "../lib/app-error.ts";
import type { Logger } from "../lib/logger.ts";

/**
 * The browser sessions' front door (infra/README.md, "Sessions from zero"): `POST {browser_url}`
 * reaches this function instead of the containers, so that a session asked for while no container
 * runs can start one. The load balancer cannot do it itself: a target group with no targets
 * answers a bare 503, no Osprey code runs, and a session not yet created is not in the database
 * for the scaler's minute pass to see.
 *
 * Per request (the caller's key is already checked, front-door-app.ts):
 * - probe the containers through the path the request will take: GET the health path through the
 *   load balancer with the bypass header (200: a container is there; 503 or anything else: none);
 * - ready: forward the request at once (one probe, one forward) with the bypass header, and relay
 *   the container's answer;
 * - not ready: nudge the scaler once (`{trigger: "session", pending: 1}`), probe every ~2 s up to a
 *   bounded wait (below CloudFront's 60 s origin timeout), forward when a container answers, else
 *   answer 503 SERVICE_BUSY with Retry-After.
 *
 * The bypass header's value is a secret (the load balancer's rule sends requests carrying it to the
 * containers, past this function): it goes only to the load balancer, never into a response or a log.
 */

export interface FrontDoorOptions {
  /** The load balancer's base URL (http://<dns name>), the same way in as the request came. */
  origin: string;
  bypass: { header: string; value: string };
  /** The containers' health path on the browser port (composeApp's /healthz). */
  healthPath: string;
  /** Asks the scaler for a container (an asynchronous invoke; failures are the nudge's to report). */
  nudge: () => Promise<void>;
  /** How long a request waits for a container before the 503. */
  waitMs: number;
  /** Time between probes while waiting. */
  probeEveryMs: number;
  /** One probe gives up after this long (a balancer that does not answer is not ready). */
  probeTimeoutMs: number;
  /** Retry-After on the 503, in seconds. */
  retryAfterSeconds: number;
  logger: Logger;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) and those the forwarding request sets itself: never copied.
 * content-encoding goes too on the way back, since fetch hands over the body already decoded.
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

export interface FrontDoor {
  /** `requestId`: this request's id (X-Request-ID), handed to the container so both log the same one. */
  serve(request: Request, requestId?: string): Promise<Response>;
}

export function createFrontDoor(opts: FrontDoorOptions): FrontDoor {
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  const base = opts.origin.replace(/\/+$/, "");
  const bypassName = opts.bypass.header.toLowerCase();
  const secret = opts.bypass.value;

  const probe = async (): Promise<{ ready: boolean; status: number | null }> => {
    try {
      const res = await doFetch(`${base}${opts.healthPath}`, {
        method: "GET",
        headers: { [bypassName]: secret },
        signal: AbortSignal.timeout(opts.probeTimeoutMs),
        redirect: "manual",
      });
      await res.body?.cancel();
      return { ready: res.status === 200, status: res.status };
    } catch {
      return { ready: false, status: null };
    }
  };

  const forward = async (request: Request, body: ArrayBuffer | null, requestId: string | undefined): Promise<Response> => {
    const url = new URL(request.url);
    const headers = new Headers();
    request.headers.forEach((value, name) => {
      if (HOP_BY_HOP.has(name) || name === bypassName) return;
      headers.set(name, value);
    });
    const host = request.headers.get("host");
    if (host && !headers.has("x-forwarded-host")) headers.set("x-forwarded-host", host);
    if (requestId) headers.set("x-request-id", requestId);
    headers.set(bypassName, secret);
    let res: Response;
    try {
      res = await doFetch(`${base}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        ...(body && body.byteLength > 0 ? { body } : {}),
        redirect: "manual",
      });
    } catch (err) {
      opts.logger.warn("front door: forwarding to the containers failed", {
        error: scrub(err instanceof Error ? err.message : String(err), secret),
      });
      throw busy("The browser containers did not answer; retry in a few seconds.", opts.retryAfterSeconds);
    }
    const out = new Headers();
    res.headers.forEach((value, name) => {
      if (HOP_BY_HOP.has(name) || name === "content-encoding" || name === bypassName || value.includes(secret)) return;
      out.append(name, value);
    });
    // The balancer's own 503 (the container left between probe and forward) says nothing about when to retry.
    if (res.status === 503 && !out.has("retry-after")) out.set("retry-after", String(opts.retryAfterSeconds));
    const payload = res.status === 204 || res.status === 304 ? null : await res.arrayBuffer();
    return new Response(payload, { status: res.status, headers: out });
  };

  return {
    async serve(request, requestId) {
      const body = request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer();
      const started = now();
      const first = await probe();
      if (first.ready) return forward(request, body, requestId);
      opts.logger.info("front door: no browser container ready; nudging the scaler", { probe_status: first.status });
      await opts.nudge();
      let probes = 1;
      const deadline = started + opts.waitMs;
      while (now() < deadline) {
        await sleep(Math.max(0, Math.min(opts.probeEveryMs, deadline - now())));
        const p = await probe();
        probes++;
        if (p.ready) {
          opts.logger.info("front door: a container is ready; forwarding", { waited_ms: now() - started, probes });
          return forward(request, body, requestId);
        }
      }
      opts.logger.warn("front door: no container within the wait; answering 503", { waited_ms: now() - started, probes });
      throw busy(
        `No browser container is ready yet; one is starting. Retry in ${opts.retryAfterSeconds} seconds.`,
        opts.retryAfterSeconds,
      );
    },
  };
}

const busy = (message: string, retryAfterSeconds: number) =>
  new AppError("SERVICE_BUSY", message, { headers: { "Retry-After": String(retryAfterSeconds) } });

/** A message with the secret replaced (an error from fetch may quote a header). */
const scrub = (text: string, secret: string) => (secret ? text.split(secret).join("[bypass]") : text);
