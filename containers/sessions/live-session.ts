import type { IncomingMessage } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import WebSocket, { type WebSocketServer } from "ws";
import type { Logger } from "../../functions/lib/logger.ts";
import type { LiveInputEvent } from "../../functions/sessions/live-input.schemas.ts";
import type { SessionLaunch } from "../../functions/sessions/session-host.ts";
import type { ChromiumProcess } from "../browser/chromium-process.ts";
import { PROXY_BYPASS_LIST } from "../browser/egress-proxy.ts";
import { type CdpClient, connectCdp } from "./cdp-client.ts";
import { isForbiddenDocument, judgeClientMessage } from "./cdp-filter.ts";
import { dispatchLiveInput } from "./live-input.ts";

/**
 * One remote browser session while it lives on this host: its own Chromium process (from the warm
 * pool), the host's control connection to it (every new target is paused until its viewport and,
 * in stealth mode, its fingerprint are set), the relays of its CDP clients, and the one way it ends.
 */

/** Set up a new page or worker target before it runs (stealth and viewport); `send` talks to that target. */
export type PrepareTarget = (
  send: (method: string, params?: Record<string, unknown>) => Promise<unknown>,
  target: { type: string; targetId: string },
) => Promise<void>;

export interface LiveSessionOptions {
  launch: SessionLaunch;
  proc: ChromiumProcess;
  logger: Logger;
  prepareTarget: PrepareTarget;
  /** Told once, after the browser is gone, with the bytes this session moved. */
  onEnded: (reason: string, bytes: { rx: number; tx: number }) => Promise<void>;
  /** Told when a client connects (created → running). */
  onConnected: () => void;
  /**
   * Awaited once the session starts ending, after its clients are closed and before the browser is
   * killed (a profile's state is written back then). Bounded by ENDING_HOOK_MS; its errors are the hook's.
   */
  onEnding?: (reason: string) => Promise<void>;
}

export interface LiveSession {
  readonly launch: SessionLaunch;
  /** Connected CDP clients now. */
  clients(): number;
  /** Milliseconds since the last CDP message either way, live view input, or the last client leaving. */
  idleMs(now: number): number;
  bytes(): { rx: number; tx: number };
  /** Completes a websocket upgrade and relays it to the browser through the filter. */
  attach(wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  /** A JPEG of the active tab (the live view), or null. */
  frame(): Promise<Buffer | null>;
  /** A person's input from the live view, on the active tab (navigate opens one when none is open). */
  input(event: LiveInputEvent): Promise<"done" | "no_page" | "gone">;
  /** Ends the session once: clients are closed, the process is killed, usage is written. */
  end(reason: string): Promise<void>;
}

/** Close code sent to a client whose session ended (4000–4999: application codes). */
const ENDED_CODE = 4000;
const PREPARE_TIMEOUT_MS = 5_000;
/** The longest onEnding may hold the browser before it is killed anyway. */
const ENDING_HOOK_MS = 15_000;

export async function openLiveSession(opts: LiveSessionOptions): Promise<LiveSession> {
  const { launch, proc, logger } = opts;
  if (!proc.wsEndpoint) throw new Error("a session browser must be launched with a DevTools websocket");
  const endpoint = proc.wsEndpoint;
  const base = proc.egress?.counters() ?? { rxBytes: 0, txBytes: 0 };
  const clients = new Set<WebSocket>();
  let lastActivity = Date.now();
  /** Live-view inputs being delivered: a navigate can take seconds, and the person is not idle meanwhile. */
  let inputsInFlight = 0;
  let ending: Promise<void> | null = null;
  const pages = new Map<string, string>(); // targetId → control session id (pages only), newest last
  const filterContext = {
    proxyUrl: proc.egress?.url ?? null,
    proxyBypassList: PROXY_BYPASS_LIST,
    downloadDir: path.join(proc.userDataDir, "Downloads"),
  };

  proc.egress?.setUpstream(launch.upstream);

  const control: CdpClient = await connectCdp(endpoint);
  const prepare = async (sessionId: string, info: { type: string; targetId: string }, waiting: boolean) => {
    const send = (method: string, params?: Record<string, unknown>) => control.send(method, params ?? {}, sessionId);
    const resume = () => (waiting ? send("Runtime.runIfWaitingForDebugger").catch(() => {}) : Promise.resolve());
    // A document answers while paused, so it is set up first and then let go; a paused worker
    // answers nothing until it runs, so it is let go at once (the setup was sent first, and CDP
    // keeps a session's commands in order).
    const isDocument = info.type === "page" || info.type === "iframe";
    const work = Promise.race([
      opts.prepareTarget(send, info),
      new Promise((resolve) => setTimeout(resolve, PREPARE_TIMEOUT_MS).unref()),
    ]).catch((err: unknown) => {
      logger.debug("session target setup failed", { session_id: launch.id, type: info.type, error: err });
    });
    if (!isDocument) await resume();
    await work;
    // Always released, or the client's page would wait forever.
    if (isDocument) await resume();
  };
  control.on("Target.attachedToTarget", (p, parent) => {
    const sessionId = p.sessionId as string;
    const info = p.targetInfo as { type: string; targetId: string; url: string };
    if (parent !== undefined && info.type === "page") return; // only the browser-level attachments are ours
    if (info.type === "page") pages.set(info.targetId, sessionId);
    void prepare(sessionId, info, p.waitingForDebugger === true);
  });
  control.on("Target.detachedFromTarget", (p) => {
    for (const [targetId, sid] of pages) if (sid === p.sessionId) pages.delete(targetId);
  });
  control.on("Target.targetInfoChanged", (p) => {
    const info = p.targetInfo as { type: string; targetId: string; url: string };
    const sid = pages.get(info.targetId);
    if (sid && info.type === "page") {
      // The most recently changed page is the one the live view shows.
      pages.delete(info.targetId);
      pages.set(info.targetId, sid);
      // Files, WebUI and extension pages never pass the egress proxy: such a document is left at once.
      if (isForbiddenDocument(info.url)) void control.send("Page.navigate", { url: "about:blank" }, sid).catch(() => {});
    }
  });
  await control.send("Target.setDiscoverTargets", { discover: true });
  await control.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });

  const bytes = () => {
    const c = proc.egress?.counters() ?? { rxBytes: 0, txBytes: 0 };
    return { rx: Math.max(0, c.rxBytes - base.rxBytes), tx: Math.max(0, c.txBytes - base.txBytes) };
  };

  const session: LiveSession = {
    launch,
    clients: () => clients.size,
    idleMs: (now) => (inputsInFlight > 0 ? 0 : now - lastActivity),
    bytes,

    async attach(wss, req, socket, head) {
      // The browser side first: a client's first command must not arrive before there is somewhere to send it.
      let upstream: WebSocket;
      try {
        upstream = await new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 512 * 1024 * 1024 });
          ws.once("open", () => resolve(ws));
          // Every error has a listener for the socket's whole life: one failed relay never reaches the process.
          ws.on("error", reject);
        });
      } catch {
        socket.end("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      if (ending) {
        upstream.terminate();
        socket.end("HTTP/1.1 410 Gone\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      wss.handleUpgrade(req, socket, head, (client) => {
        clients.add(client);
        lastActivity = Date.now();
        opts.onConnected();
        const touch = () => {
          lastActivity = Date.now();
        };
        client.on("message", (data, isBinary) => {
          touch();
          const verdict = judgeClientMessage(
            isBinary ? Buffer.from(data as Buffer).toString("utf8") : data.toString(),
            filterContext,
          );
          if (verdict.kind === "forward") {
            if (upstream.readyState === WebSocket.OPEN) upstream.send(verdict.message);
            return;
          }
          const reply = (body: Record<string, unknown>) =>
            client.send(
              JSON.stringify({ id: verdict.id, ...(verdict.sessionId ? { sessionId: verdict.sessionId } : {}), ...body }),
            );
          if (verdict.kind === "refuse") {
            if (verdict.id !== null) reply({ error: { code: -32000, message: verdict.reason } });
            return;
          }
          // Browser.close: the client's way of saying it is done (puppeteer's browser.close()).
          reply({ result: {} });
          void session.end("browser_close");
        });
        upstream.on("message", (data, isBinary) => {
          touch();
          if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
        });
        const closeBoth = () => {
          clients.delete(client);
          lastActivity = Date.now();
          if (upstream.readyState !== WebSocket.CLOSED) upstream.terminate();
          if (client.readyState === WebSocket.OPEN) client.close(1000, "the browser connection closed");
        };
        client.on("close", closeBoth);
        client.on("error", closeBoth);
        upstream.on("close", closeBoth);
        upstream.on("error", closeBoth);
      });
    },

    async frame() {
      const active = [...pages.values()].at(-1);
      if (!active) return null;
      try {
        const shot = (await control.send("Page.captureScreenshot", { format: "jpeg", quality: 60 }, active)) as { data?: string };
        return shot.data ? Buffer.from(shot.data, "base64") : null;
      } catch {
        return null;
      }
    },

    async input(event) {
      // A person working through the live view is activity, like a CDP client's traffic.
      lastActivity = Date.now();
      if (ending) return "gone";
      const active = [...pages.values()].at(-1);
      inputsInFlight++;
      try {
        if (active) {
          await dispatchLiveInput((method, params) => control.send(method, params ?? {}, active), event);
          return "done";
        }
        if (event.type !== "navigate") return "no_page";
        // The new tab is attached and set up (paused until then) like any other, and becomes the active one.
        await control.send("Target.createTarget", { url: event.url });
        return "done";
      } catch (err) {
        // The tab closed or navigated away between the lookup and the command: nothing took the input.
        logger.debug("live view input not delivered", { session_id: launch.id, type: event.type, error: err });
        return ending ? "gone" : "no_page";
      } finally {
        inputsInFlight--;
        lastActivity = Date.now();
      }
    },

    end(reason) {
      ending ??= (async () => {
        for (const c of clients) c.close(ENDED_CODE, `the session ended (${reason})`);
        if (opts.onEnding) {
          await Promise.race([
            opts.onEnding(reason).catch(() => {}),
            new Promise((resolve) => setTimeout(resolve, ENDING_HOOK_MS).unref()),
          ]);
        }
        control.close();
        await proc.terminate({ force: true });
        for (const c of clients) c.terminate();
        await opts.onEnded(reason, bytes());
      })();
      return ending;
    },
  };
  proc.browser.once("disconnected", () => void session.end("browser_exited"));
  return session;
}
