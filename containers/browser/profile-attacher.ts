import type { Browser, BrowserContext, CDPSession, Protocol } from "puppeteer-core";

/**
 * Attaches to every page of the browser contexts registered with it before the page runs, one CDP
 * session per browser for all of them (Target.setAutoAttach with waitForDebuggerOnStart; Chromium
 * resumes a target once every client that paused it lets it go, so puppeteer's own pause and this
 * one coexist). A page of a context nobody registered is let go at once. With no context left
 * (each goes when its context is closed), nothing is attached any more.
 */

/** What a registered context does with its targets (profile-agent.ts). */
export interface AttachedContext {
  readonly context: BrowserContext;
  /** Set up a target of the context (paused when `ev.waitingForDebugger`) and let it run. */
  adopt(parent: CDPSession, child: CDPSession, ev: Protocol.Target.AttachedToTargetEvent): void;
  /** The session went away. */
  forget(sessionId: string): void;
}

export interface Attacher {
  /** The browser-level session (Target.*, Storage.* with a browserContextId). */
  session: CDPSession;
  /** Registered contexts by CDP browser context id. */
  contexts: Map<string, AttachedContext>;
  /** Turns attaching on (again) once a context is registered. */
  ensureAutoAttach(): Promise<void>;
  /** Routes an attached target (from the browser session or a page's own auto-attach) to its context. */
  onAttached(parent: CDPSession, ev: Protocol.Target.AttachedToTargetEvent): void;
  /** A session of our own on a target, which no context adopts (the hidden reader pages). */
  attachOwn(targetId: string): Promise<CDPSession | null>;
}

const attachers = new WeakMap<Browser, Promise<Attacher>>();
const ignore = (): undefined => undefined;

/** Lets a paused target run and detaches from it. */
export function releaseTarget(parent: CDPSession, child: CDPSession, ev: Protocol.Target.AttachedToTargetEvent): void {
  const resume = ev.waitingForDebugger ? child.send("Runtime.runIfWaitingForDebugger").catch(ignore) : Promise.resolve();
  void resume.then(() => parent.send("Target.detachFromTarget", { sessionId: ev.sessionId }).catch(ignore));
}

/** The CDP id of `context` (the default context has one too, which puppeteer does not expose). */
export async function browserContextIdOf(attacher: Attacher, context: BrowserContext): Promise<string> {
  if (context.id !== undefined) return context.id;
  const { defaultBrowserContextId } = await attacher.session.send("Target.getBrowserContexts");
  if (!defaultBrowserContextId) throw new Error("the browser does not report its default browser context id");
  return defaultBrowserContextId;
}

export function attacherFor(browser: Browser): Promise<Attacher> {
  let attacher = attachers.get(browser);
  if (!attacher) {
    attacher = createAttacher(browser);
    attachers.set(browser, attacher);
    attacher.catch(() => attachers.delete(browser));
  }
  return attacher;
}

async function createAttacher(browser: Browser): Promise<Attacher> {
  const session = await browser.target().createCDPSession();
  const connection = session.connection();
  if (!connection) throw new Error("the browser session has no connection");
  const registry = new Map<string, AttachedContext>();
  const own = new Set<string>();
  let autoAttach: Promise<void> | null = null;

  /** Contexts that were closed go; with none left nothing is attached any more. */
  const sweep = () => {
    for (const [id, c] of registry) if (c.context.closed) registry.delete(id);
    if (registry.size === 0 && autoAttach) {
      autoAttach = null;
      void session.send("Target.setAutoAttach", { autoAttach: false, waitForDebuggerOnStart: false }).catch(ignore);
    }
  };

  const attacher: Attacher = {
    session,
    contexts: registry,
    ensureAutoAttach() {
      autoAttach ??= session
        .send("Target.setAutoAttach", {
          autoAttach: true,
          waitForDebuggerOnStart: true,
          flatten: true,
          filter: [{ type: "page" }, { exclude: true }],
        })
        .then(() => {});
      return autoAttach;
    },
    onAttached(parent, ev) {
      const child = connection.session(ev.sessionId);
      if (!child || own.has(ev.targetInfo.targetId)) return;
      if (parent === session) sweep();
      const owner = registry.get(ev.targetInfo.browserContextId ?? "");
      if (owner && !owner.context.closed) owner.adopt(parent, child, ev);
      else releaseTarget(parent, child, ev);
    },
    attachOwn: async () => null,
  };
  attacher.attachOwn = async (targetId) => {
    own.add(targetId);
    try {
      const { sessionId } = await session.send("Target.attachToTarget", { targetId, flatten: true });
      return connection.session(sessionId);
    } catch {
      return null;
    } finally {
      // The attach event came before the answer: from now on the id routes as usual again.
      own.delete(targetId);
    }
  };
  session.on("Target.attachedToTarget", (ev) => attacher.onAttached(session, ev));
  session.on("Target.detachedFromTarget", (ev) => {
    for (const c of registry.values()) c.forget(ev.sessionId);
  });
  return attacher;
}
