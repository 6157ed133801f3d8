/**
 * The `Renderer` port: how the fetch pipeline asks for a page to be rendered by a real browser.
 *
 * The edge never imports the serverful side (ARCHITECTURE.md): the single-machine entry point fills
 * this port with the local Chromium pool (containers/browser/chromium-pool.ts), the cloud deployment
 * with the browser containers' internal render endpoint, and a host without Chromium with
 * `unavailableRenderer`, so that the fast path keeps working and only rendering fails, per URL.
 */

export interface RenderRequest {
  /** An http(s) URL the caller has already checked with the same policy as `isAllowed`. */
  url: string;
  /** The whole render (navigation, settle, serialisation) must finish within this many ms. */
  timeoutMs: number;
  /** Aborting gives up the render (queued or running) and frees its browser context. */
  signal?: AbortSignal;
  /**
   * The address policy, injected by the caller. It is asked about every request the page makes
   * (the document, each redirect hop, every subresource); only a `true` lets it reach the network.
   * It judges URLs; the address actually connected to is judged again by the browser's egress
   * proxy (containers/browser/egress-proxy.ts), which resolves names itself and pins the address.
   */
  isAllowed: (url: string) => Promise<boolean>;
}

export type RenderError = "render_unavailable" | "timeout" | "target_unreachable" | "invalid_url" | "invalid_redirect_url";

export type RenderResult =
  | {
      ok: true;
      /** The serialised DOM after scripts ran. */
      html: string;
      /** The URL of the document that was rendered, after redirects. */
      finalUrl: string;
      /** The HTTP status of the main document, null when the browser did not report one. */
      status: number | null;
    }
  | { ok: false; error: RenderError; detail: string };

export interface Renderer {
  /** False when this renderer can never render (no browser installed): callers skip it up front. */
  readonly available: boolean;
  /** One line for the start-up banner. */
  readonly description: string;
  /** Never throws for per-page failures: they come back as `{ ok: false }` values. */
  render(req: RenderRequest): Promise<RenderResult>;
  /** The one close path: releases browsers, processes and temp dirs. Idempotent. */
  close(): Promise<void>;
}

/** A failed render result. */
export const renderFailure = (error: RenderError, detail: string): RenderResult => ({ ok: false, error, detail });

/** The renderer for a host with no browser: every render fails with `render_unavailable`. */
export const unavailableRenderer = (reason: string): Renderer => ({
  available: false,
  description: `none: ${reason}`,
  render: async () => renderFailure("render_unavailable", `pages that need scripts cannot be rendered here: ${reason}`),
  close: async () => {},
});
