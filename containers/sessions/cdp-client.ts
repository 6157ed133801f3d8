import WebSocket from "ws";

/**
 * A small raw CDP client over one websocket: the session host's own control connection to a
 * session's browser (auto-attach, viewport and stealth on every new target). Raw rather than
 * puppeteer so that a target's pause (waitForDebuggerOnStart) is released exactly when this code
 * has set it up, with nothing of puppeteer's own target bookkeeping in between.
 */

export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: unknown;
  error?: { code: number; message: string };
}

export type CdpEventHandler = (params: Record<string, unknown>, sessionId: string | undefined) => void;

export interface CdpClient {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
  on(method: string, handler: CdpEventHandler): void;
  /** Resolves when the connection closes (either side). */
  readonly closed: Promise<void>;
  close(): void;
}

export class CdpError extends Error {
  override name = "CdpError";
}

const CALL_TIMEOUT_MS = 10_000;

export function connectCdp(url: string, timeoutMs = 10_000): Promise<CdpClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024, handshakeTimeout: timeoutMs });
    let nextId = 1;
    const pending = new Map<
      number,
      { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
    >();
    const handlers = new Map<string, CdpEventHandler[]>();
    let markClosed: () => void = () => {};
    const closed = new Promise<void>((r) => {
      markClosed = r;
    });
    const failAll = (why: string) => {
      for (const [, p] of pending) {
        clearTimeout(p.timer);
        p.reject(new CdpError(why));
      }
      pending.clear();
    };
    ws.on("message", (data) => {
      let msg: CdpMessage;
      try {
        msg = JSON.parse(data.toString()) as CdpMessage;
      } catch {
        return;
      }
      if (msg.id !== undefined) {
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.error) p.reject(new CdpError(msg.error.message));
        else p.resolve((msg.result ?? {}) as Record<string, unknown>);
        return;
      }
      if (msg.method) for (const h of handlers.get(msg.method) ?? []) h(msg.params ?? {}, msg.sessionId);
    });
    ws.on("close", () => {
      failAll("the browser connection closed");
      markClosed();
    });
    ws.on("error", (err) => {
      failAll(`the browser connection failed: ${err.message}`);
      reject(err);
    });
    ws.once("open", () =>
      resolve({
        send(method, params = {}, sessionId) {
          if (ws.readyState !== WebSocket.OPEN) return Promise.reject(new CdpError("the browser connection is closed"));
          const id = nextId++;
          return new Promise((res, rej) => {
            const timer = setTimeout(() => {
              pending.delete(id);
              rej(new CdpError(`${method} did not answer within ${CALL_TIMEOUT_MS} ms`));
            }, CALL_TIMEOUT_MS);
            timer.unref();
            pending.set(id, { resolve: res, reject: rej, timer });
            ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
          });
        },
        on(method, handler) {
          handlers.set(method, [...(handlers.get(method) ?? []), handler]);
        },
        closed,
        close() {
          ws.terminate();
        },
      }),
    );
  });
}
