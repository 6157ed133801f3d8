import { type RenderError, type Renderer, type RenderResult, renderFailure } from "./renderer.ts";

/**
 * The `Renderer` port filled over HTTP: the edge has no browser, so a page that needs scripts is
 * rendered by a browser container's internal render endpoint (containers/worker/render-endpoint.ts).
 * The request carries the URL and the deadline only: the address policy (`isAllowed`) is a function
 * and cannot travel, so the container applies its own, the same OSPREY_ALLOW_PRIVATE_HOSTS rules,
 * to every request the page makes. A shared secret (bearer) keeps the endpoint internal.
 */

export interface RemoteRendererOptions {
  /** The container's render endpoint, e.g. http://10.0.3.7:8788/internal/render. */
  url: string;
  /** Sent as `Authorization: Bearer <secret>`; the endpoint compares it in constant time. */
  secret: string;
  /** Tests inject theirs; default: the global fetch. */
  fetch?: typeof fetch;
}

/** The wire body of a render request (RenderRequest without its functions and signal). */
export interface RenderWireRequest {
  url: string;
  timeout_ms: number;
}

const ERRORS: readonly RenderError[] = [
  "render_unavailable",
  "timeout",
  "target_unreachable",
  "invalid_url",
  "invalid_redirect_url",
];

/** A body the endpoint sent, checked: anything else is the endpoint failing, not the page. */
function parseResult(json: unknown): RenderResult | null {
  if (typeof json !== "object" || json === null) return null;
  const r = json as Record<string, unknown>;
  if (r.ok === true && typeof r.html === "string" && typeof r.finalUrl === "string") {
    return { ok: true, html: r.html, finalUrl: r.finalUrl, status: typeof r.status === "number" ? r.status : null };
  }
  if (r.ok === false && ERRORS.includes(r.error as RenderError)) {
    return renderFailure(r.error as RenderError, typeof r.detail === "string" ? r.detail : "render failed");
  }
  return null;
}

export function createRemoteRenderer(opts: RemoteRendererOptions): Renderer {
  const doFetch = opts.fetch ?? fetch;
  const where = new URL(opts.url).host;
  return {
    available: true,
    description: `remote (${where})`,
    async render(req) {
      // The render's own deadline bounds the call; the caller's signal ends it early.
      const deadline = AbortSignal.timeout(Math.max(1, req.timeoutMs));
      const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
      const body: RenderWireRequest = { url: req.url, timeout_ms: req.timeoutMs };
      let res: Response;
      try {
        res = await doFetch(opts.url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${opts.secret}` },
          body: JSON.stringify(body),
          signal,
        });
      } catch (err) {
        if (deadline.aborted) return renderFailure("timeout", `the render did not finish within ${req.timeoutMs} ms`);
        if (req.signal?.aborted) return renderFailure("timeout", "the render was cancelled");
        return renderFailure("render_unavailable", `the render service could not be reached (${(err as Error).name})`);
      }
      try {
        if (res.status === 401) return renderFailure("render_unavailable", "the render service refused this deployment's secret");
        if (res.status !== 200) return renderFailure("render_unavailable", `the render service answered HTTP ${res.status}`);
        const result = parseResult(await res.json());
        return result ?? renderFailure("render_unavailable", "the render service sent an unreadable answer");
      } catch (err) {
        if (deadline.aborted) return renderFailure("timeout", `the render did not finish within ${req.timeoutMs} ms`);
        return renderFailure("render_unavailable", `the render service's answer could not be read (${(err as Error).name})`);
      } finally {
        // A body not read to its end would hold the connection.
        if (!res.bodyUsed) await res.body?.cancel().catch(() => {});
      }
    },
    close: async () => {},
  };
}
