import type { BrowserContext, CDPSession, Protocol } from "puppeteer-core";
import type { OriginStorage } from "../../functions/profiles/profile-state.ts";
import { registrableDomain } from "../../functions/vault/domains.ts";
import { type AttachedContext, type Attacher, attacherFor, browserContextIdOf, releaseTarget } from "./profile-attacher.ts";
import { type CookieFill, startCookieFill } from "./profile-cookie-fill.ts";
import { httpOrigin, type StorageItems } from "./profile-data.ts";
import { LOADER_WORLD, loaderSource, type PendingStorage } from "./profile-loader.ts";
import { readStorageInHiddenPages } from "./profile-reader.ts";
import { bounded } from "./request-guard.ts";

/**
 * What a Browser Context Profile needs to see inside one browser context: every page and
 * out-of-process frame of the context, attached before its first document runs.
 *
 * Why an agent at all: Chromium cannot write an origin's localStorage without a frame on that
 * origin (DOMStorage.setDOMStorageItem answers "Frame not found for the given storage id", with a
 * storageKey or a securityOrigin alike), and opening every origin of a profile in a frame first
 * would cost a navigation per origin. So localStorage is loaded lazily: each target of the context
 * gets a script, in an isolated world the site cannot see, that runs before the site's own scripts
 * on every new document and writes the profile's items for that document's origin when its
 * first-party storage is still empty. Once a first-party document of the origin has committed, the
 * origin leaves the script, so a site that later clears its storage is never refilled. A document
 * in a cross-site frame (its ancestors not all same-site, by `location.ancestorOrigins`) gets
 * nothing: its storage is partitioned under the top-level site, and partitioned localStorage is not
 * kept.
 *
 * The same attachment reports every committed document: the visits, the frames open now (read
 * from directly), and the origins the context opened first-party (read through a hidden page once
 * no frame shows them, profile-reader.ts). An origin the context never opened first-party still
 * holds what was loaded, untouched. While the profile's cookies go in, it also holds each target's
 * requests to the profile's sites (dedicated workers included) until their cookies are in
 * (profile-cookie-fill.ts).
 *
 * Every new page is paused until it is set up (profile-attacher.ts).
 */

export interface ContextAgent {
  readonly context: BrowserContext;
  /** The CDP browser context id (the default context has one too). */
  readonly browserContextId: string;
  /** The browser-level session, for Storage.* with `browserContextId`. */
  readonly browserSession: CDPSession;
  /** Queues `storage` for the first first-party document of each origin; resolves once every open target has it. */
  load(storage: OriginStorage[]): Promise<void>;
  /**
   * Starts putting cookies in, per registrable domain (profile-cookie-fill.ts); resolves once every
   * open target holds its requests meanwhile. `cookiesIn()` tells when they are all in.
   */
  loadCookies(byDomain: Map<string, Protocol.Network.CookieParam[]>): Promise<void>;
  /** Resolves once the cookies `loadCookies` started with are all in (at once when none were). */
  cookiesIn(): Promise<{ refused: number; failed: boolean }>;
  /** What `load` queued for `origin` (capped), if anything. */
  loaded(origin: string): StorageItems | undefined;
  loadedOrigins(): string[];
  /**
   * localStorage of each origin now: read from a frame open on it, else, for an origin the context
   * opened first-party, through a hidden page; an origin missing from the answer was never opened
   * first-party since the agent came (it holds what was loaded) or could not be read.
   */
  readStorage(origins: string[]): Promise<Map<string, StorageItems>>;
  /** Hears the origin of every http(s) document committed from now on, after those open now. */
  watch(onOrigin: (origin: string) => void): () => void;
}

interface FrameInfo {
  /** Origin of its http(s) document, null for any other. */
  origin: string | null;
  parentId: string | undefined;
}

interface TargetEntry {
  sessionId: string;
  session: CDPSession;
  /** A page (its main frame is top-level) or an out-of-process iframe (cross-site to its parent). */
  isPage: boolean;
  frames: Map<string, FrameInfo>;
  /** Loader scripts registered on it, oldest first; changes go through `chain`, one at a time. */
  scripts: string[];
  chain: Promise<void>;
}

interface Agent extends ContextAgent, AttachedContext {
  adoptExisting(): Promise<void>;
}

const agents = new WeakMap<BrowserContext, Promise<Agent>>();

const ignore = (): undefined => undefined;

/** The agent of `context`, created (and attached to every target of it) on first use. */
export function agentFor(context: BrowserContext): Promise<ContextAgent> {
  let agent = agents.get(context);
  if (!agent) {
    agent = createAgentFor(context);
    agents.set(context, agent);
    agent.catch(() => agents.delete(context));
  }
  return agent;
}

async function createAgentFor(context: BrowserContext): Promise<Agent> {
  const attacher = await attacherFor(context.browser());
  const id = await browserContextIdOf(attacher, context);
  const agent = createAgent(attacher, context, id);
  attacher.contexts.set(id, agent);
  await attacher.ensureAutoAttach();
  await agent.adoptExisting();
  return agent;
}

/** Scheme and registrable domain: what "same-site" compares (schemeful, as storage partitioning does). */
const siteOf = (origin: string): string => {
  const u = new URL(origin);
  return `${u.protocol}//${registrableDomain(u.hostname)}`;
};

function createAgent(attacher: Attacher, context: BrowserContext, browserContextId: string): Agent {
  const targets = new Map<string, TargetEntry>(); // by target id
  const pending: PendingStorage = new Map();
  const loaded = new Map<string, StorageItems>();
  /** Origins a first-party document was committed on (their storage may differ from what was loaded). */
  const firstParty = new Set<string>();
  const watchers = new Set<(origin: string) => void>();
  const setups = new Set<Promise<unknown>>();
  let source: string | null = null;
  let cookieFill: CookieFill | null = null;

  const track = (work: Promise<unknown>) => {
    setups.add(work);
    void work.finally(() => setups.delete(work));
  };
  const settled = async () => {
    while (setups.size > 0) await Promise.all([...setups]);
  };

  /** Registers the current loader on `entry` and removes the ones before it (in that order: no gap). */
  const refresh = (entry: TargetEntry) => {
    entry.chain = entry.chain.then(async () => {
      const next = source;
      if (next) {
        const added = await entry.session
          .send("Page.addScriptToEvaluateOnNewDocument", { source: next, worldName: LOADER_WORLD })
          .catch(ignore);
        if (added) entry.scripts.push(added.identifier);
      }
      const stale = next ? entry.scripts.slice(0, -1) : entry.scripts.slice();
      entry.scripts = entry.scripts.filter((s) => !stale.includes(s));
      await Promise.all(
        stale.map((identifier) => entry.session.send("Page.removeScriptToEvaluateOnNewDocument", { identifier }).catch(ignore)),
      );
    });
    return entry.chain;
  };
  const refreshAll = async () => {
    source = loaderSource(pending);
    await Promise.all([...targets.values()].map(refresh));
  };

  /** A frame is first-party when it and every ancestor up to the page's main frame are same-site. */
  const isFirstParty = (entry: TargetEntry, frameId: string): boolean => {
    if (!entry.isPage) return false;
    const self = entry.frames.get(frameId);
    if (!self?.origin) return false;
    const site = siteOf(self.origin);
    for (let f: FrameInfo | undefined = self; f; f = f.parentId === undefined ? undefined : entry.frames.get(f.parentId)) {
      if (!f.origin || siteOf(f.origin) !== site) return false;
      if (f.parentId === undefined) return true;
    }
    return false; // an ancestor this session does not know
  };
  const opened = (entry: TargetEntry, frameId: string, origin: string) => {
    for (const w of watchers) w(origin);
    if (!isFirstParty(entry, frameId)) return;
    firstParty.add(origin);
    // The loader has run in this document: the origin must never be filled again.
    if (pending.delete(origin)) void refreshAll();
  };
  const navigated = (entry: TargetEntry, frame: Protocol.Page.Frame) => {
    const origin = frame.unreachableUrl ? null : httpOrigin(frame.url);
    entry.frames.set(frame.id, { origin, parentId: frame.parentId });
    if (origin) opened(entry, frame.id, origin);
  };
  const seedFrames = (entry: TargetEntry, tree: Protocol.Page.FrameTree) => {
    navigated(entry, tree.frame);
    for (const child of tree.childFrames ?? []) seedFrames(entry, child);
  };
  const detached = (entry: TargetEntry, frameId: string) => {
    entry.frames.delete(frameId);
    for (const [id, f] of entry.frames) if (f.parentId === frameId) detached(entry, id);
  };

  const listen = (entry: TargetEntry) => {
    const s = entry.session;
    s.on("Page.frameAttached", (e) => void entry.frames.set(e.frameId, { origin: null, parentId: e.parentFrameId }));
    s.on("Page.frameNavigated", (e) => navigated(entry, e.frame));
    s.on("Page.frameDetached", (e) => detached(entry, e.frameId));
    // Out-of-process frames of this page (and theirs) are attached by the page's own auto-attach.
    s.on("Target.attachedToTarget", (ev) => attacher.onAttached(s, ev));
    s.on("Target.detachedFromTarget", (ev) => agent.forget(ev.sessionId));
  };

  /** Reads from frames open on the origins now (DOMStorage answers only through a frame of the origin's own storage key). */
  const readLive = async (origins: string[]): Promise<Map<string, StorageItems>> => {
    const out = new Map<string, StorageItems>();
    await Promise.all(
      origins.map(async (origin) => {
        for (const entry of targets.values()) {
          if (![...entry.frames.values()].some((f) => f.origin === origin)) continue;
          const read = await bounded(
            entry.session.send("DOMStorage.getDOMStorageItems", {
              storageId: { storageKey: `${origin}/`, isLocalStorage: true },
            }),
            null,
          );
          if (read) {
            out.set(
              origin,
              read.entries.map((e): [string, string] => [e[0] ?? "", e[1] ?? ""]),
            );
            return;
          }
        }
      }),
    );
    return out;
  };

  const agent: Agent = {
    context,
    browserContextId,
    browserSession: attacher.session,

    adopt(parent, child, ev) {
      const info = ev.targetInfo;
      if (targets.has(info.targetId)) {
        // Attached twice (auto-attach and the explicit attach of an existing target crossed): keep the first.
        releaseTarget(parent, child, ev);
        return;
      }
      if (info.type === "worker") {
        // A dedicated worker matters only while cookies are going in: its requests are held like a page's.
        if (!cookieFill?.active()) return releaseTarget(parent, child, ev);
        track(Promise.all([cookieFill.arm(child), child.send("Runtime.runIfWaitingForDebugger").catch(ignore)]));
        return;
      }
      const entry: TargetEntry = {
        sessionId: ev.sessionId,
        session: child,
        isPage: info.type === "page",
        frames: new Map(),
        scripts: [],
        chain: Promise.resolve(),
      };
      targets.set(info.targetId, entry);
      listen(entry);
      // Sent in order before the target may run (a paused target answers only once resumed, so nothing is awaited first).
      const steps: Promise<unknown>[] = [
        child.send("Page.enable").catch(ignore),
        child
          .send("Target.setAutoAttach", {
            autoAttach: true,
            waitForDebuggerOnStart: true,
            flatten: true,
            filter: [{ type: "iframe" }, { type: "worker" }, { exclude: true }],
          })
          .catch(ignore),
      ];
      if (cookieFill?.active()) steps.push(cookieFill.arm(child));
      if (source) {
        const add = child
          .send("Page.addScriptToEvaluateOnNewDocument", {
            source,
            worldName: LOADER_WORLD,
            runImmediately: !ev.waitingForDebugger,
          })
          .then((r) => void entry.scripts.push(r.identifier), ignore);
        entry.chain = add;
        steps.push(add);
      }
      if (ev.waitingForDebugger) steps.push(child.send("Runtime.runIfWaitingForDebugger").catch(ignore));
      else {
        // Already running: its documents are known from its frame tree (the agent came after them).
        steps.push(
          child.send("Page.getFrameTree").then(
            (r) => seedFrames(entry, r.frameTree),
            () => {},
          ),
        );
      }
      track(Promise.all(steps));
    },

    forget(sessionId) {
      for (const [targetId, entry] of targets) if (entry.sessionId === sessionId) targets.delete(targetId);
    },

    async adoptExisting() {
      const { targetInfos } = await attacher.session.send("Target.getTargets", { filter: [{ type: "page" }, { exclude: true }] });
      const mine = targetInfos.filter((t) => t.browserContextId === browserContextId && !targets.has(t.targetId));
      await Promise.all(
        mine.map((t) => attacher.session.send("Target.attachToTarget", { targetId: t.targetId, flatten: true }).catch(ignore)),
      );
      await settled();
    },

    async load(storage) {
      for (const s of storage) {
        const origin = httpOrigin(s.origin);
        if (!origin || s.items.length === 0) continue;
        const url = new URL(origin);
        loaded.set(origin, s.items);
        if (!firstParty.has(origin))
          pending.set(origin, { scheme: url.protocol, site: registrableDomain(url.hostname), items: s.items });
      }
      // The loader is set on every target at once (a target adopted meanwhile gets it from `source`).
      await refreshAll();
      await settled();
    },

    async loadCookies(byDomain) {
      if (cookieFill) await cookieFill.done;
      cookieFill = startCookieFill(attacher.session, context.id === undefined ? {} : { browserContextId: context.id }, byDomain);
      const fill = cookieFill;
      await Promise.all([...targets.values()].map((t) => fill.arm(t.session)));
    },

    cookiesIn: () => cookieFill?.done ?? Promise.resolve({ refused: 0, failed: false }),

    loaded: (origin) => loaded.get(origin),
    loadedOrigins: () => [...loaded.keys()],

    async readStorage(origins) {
      const live = await readLive(origins);
      const gone = origins.filter((o) => !live.has(o) && firstParty.has(o));
      if (gone.length === 0) return live;
      const read = await readStorageInHiddenPages(attacher, context.id, gone);
      for (const [origin, items] of read) live.set(origin, items);
      return live;
    },

    watch(onOrigin) {
      for (const entry of targets.values()) for (const f of entry.frames.values()) if (f.origin) onOrigin(f.origin);
      watchers.add(onOrigin);
      return () => void watchers.delete(onOrigin);
    },
  };
  return agent;
}
