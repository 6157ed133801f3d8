/**
 * What a remote session's CDP client may send. The client owns a whole Chromium process (one per
 * session, never shared), so most of CDP is its to use; what is refused is what would reach past
 * that browser: the host's files, the host's ports, the network around the egress proxy, or the
 * process itself. Judged per message, whatever target session it is addressed to (a flattened
 * child session, or the browser target attached with Target.attachToBrowserTarget).
 */

export type FilterVerdict =
  /** Send on; `message` is the (possibly rewritten) text. */
  | { kind: "forward"; message: string }
  /** Answer the client with a CDP error and send nothing. */
  | { kind: "refuse"; id: number | null; sessionId: string | undefined; reason: string }
  /** Browser.close: the client is done with the session; end it (the answer is sent first). */
  | { kind: "end-session"; id: number; sessionId: string | undefined };

/** Methods that reach outside the session's browser. */
const REFUSED: Record<string, string> = {
  "Browser.crash": "would kill the browser process; use DELETE on the session",
  "Browser.crashGpuProcess": "would kill a browser process",
  "Browser.executeBrowserCommand": "runs browser UI commands outside the page",
  "Target.exposeDevToolsProtocol": "would hand the protocol to page scripts, around this filter",
  "Target.setRemoteLocations": "would make the browser connect to other hosts outside the egress proxy",
  "Target.openDevTools": "opens a DevTools window",
  "Tethering.bind": "would bind ports on the browser host",
  "Tethering.unbind": "binds ports on the browser host",
  "DOM.setFileInputFiles": "reads files of the browser host; upload by dispatching the file's bytes from the page instead",
};

/** Whole domains that reach the host: extensions load from host paths; web apps install on it. */
const REFUSED_DOMAINS: Record<string, string> = {
  Extensions: "loads extensions from the browser host's disk",
  PWA: "installs applications on the browser host",
};

/** Documents that never go through the egress proxy: the host's files, WebUI, extensions. */
const FORBIDDEN_URL = /^\s*(file|chrome|chrome-untrusted|chrome-extension|chrome-search|devtools|view-source|filesystem|ftp):/i;

const DOWNLOAD_TO_DISK = new Set(["allow", "allowAndName"]);

export interface FilterContext {
  /** The session's egress proxy (`http://127.0.0.1:port`): forced onto every context the client creates. */
  proxyUrl: string | null;
  proxyBypassList: string;
  /**
   * The session's own download directory (inside its profile, removed with it): a download the
   * client allows lands there whatever path it asked for, never elsewhere on the host.
   */
  downloadDir: string;
}

export function judgeClientMessage(raw: string, ctx: FilterContext): FilterVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { kind: "refuse", id: null, sessionId: undefined, reason: "the message is not JSON" };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { kind: "refuse", id: null, sessionId: undefined, reason: "a CDP command is a JSON object" };
  }
  const msg = parsed as { id?: unknown; method?: unknown; params?: unknown; sessionId?: unknown };
  const id = typeof msg.id === "number" && Number.isSafeInteger(msg.id) ? msg.id : null;
  const sessionId = typeof msg.sessionId === "string" ? msg.sessionId : undefined;
  const method = typeof msg.method === "string" ? msg.method : null;
  if (id === null || method === null) {
    return { kind: "refuse", id, sessionId, reason: "a CDP command needs a numeric id and a method" };
  }
  const params = (msg.params && typeof msg.params === "object" ? msg.params : {}) as Record<string, unknown>;
  const refuse = (why: string): FilterVerdict => ({
    kind: "refuse",
    id,
    sessionId,
    reason: `${method} is not allowed in an Osprey session: ${why}`,
  });

  if (method === "Browser.close") return { kind: "end-session", id, sessionId };
  const fixed = REFUSED[method];
  if (fixed) return refuse(fixed);
  const domain = method.slice(0, method.indexOf("."));
  const domainWhy = REFUSED_DOMAINS[domain];
  if (domainWhy) return refuse(domainWhy);

  switch (method) {
    case "Browser.setDownloadBehavior":
    case "Page.setDownloadBehavior":
      // Playwright asks for downloads on connect, with a path on the client's machine; the bytes
      // stay in the session's own directory instead, and leave with the session.
      if (DOWNLOAD_TO_DISK.has(String(params.behavior))) {
        return { kind: "forward", message: JSON.stringify({ ...msg, params: { ...params, downloadPath: ctx.downloadDir } }) };
      }
      break;
    case "Input.dispatchDragEvent": {
      // DragData.files names files on the browser host, like DOM.setFileInputFiles.
      const files = (params.data as { files?: unknown } | undefined)?.files;
      if (Array.isArray(files) && files.length > 0) return refuse("a drag with files reads files of the browser host");
      break;
    }
    case "Tracing.start":
      if (params.tracingBackend === "system") return refuse("the system tracing backend runs on the browser host");
      break;
    case "Page.navigate":
    case "Target.createTarget":
      if (typeof params.url === "string" && FORBIDDEN_URL.test(params.url)) {
        return refuse(`${params.url.split(":")[0]}: URLs are not reachable from a session`);
      }
      break;
    case "Target.createBrowserContext":
      if (params.proxyServer !== undefined || params.proxyBypassList !== undefined) {
        return refuse("a context's proxy is the session's (set proxy_config when creating the session)");
      }
      if (ctx.proxyUrl) {
        // Every context's traffic leaves through the session's egress proxy, like the default one's.
        const rewritten = { ...msg, params: { ...params, proxyServer: ctx.proxyUrl, proxyBypassList: ctx.proxyBypassList } };
        return { kind: "forward", message: JSON.stringify(rewritten) };
      }
      break;
  }
  return { kind: "forward", message: raw };
}

/** Whether a page URL is one a session must leave at once (navigated away from by the host). */
export const isForbiddenDocument = (url: string): boolean => FORBIDDEN_URL.test(url);
