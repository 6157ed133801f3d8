import type { CDPSession } from "puppeteer-core";
import type { Attacher } from "./profile-attacher.ts";
import type { StorageItems } from "./profile-data.ts";
import { bounded } from "./request-guard.ts";

/**
 * Reads the first-party localStorage of origins that no frame of a context shows any more.
 *
 * Chromium answers DOMStorage.getDOMStorageItems only through a frame of the origin, and the
 * browser's storage events cannot stand in for a read: the last writes before a document goes away
 * (a login that stores a token and navigates at once) often never reach a DevTools client. So a
 * hidden page is opened in the context and navigated to each origin, every request it makes
 * answered here with an empty document (Fetch.fulfillRequest: nothing reaches the network, no
 * script runs), and the storage is read through that document: what the browser holds, exactly.
 *
 * The page is `hidden` (Target.createTarget): no auto-attach reaches it, puppeteer reports it as an
 * "other" target (never a tab of a run), no profile agent adopts it (no loader, no visits), and it
 * is closed with the browser session at the latest.
 */

/** Hidden pages at once, each reading its share of the origins one after another. */
const READERS = 4;
/** One origin's navigation and read; a reader that passes it gives up its remaining origins. */
const READ_TIMEOUT_MS = 5_000;

type Send = CDPSession["send"];

/** The items of each origin that could be read (an origin missing from the answer could not be). */
export async function readStorageInHiddenPages(
  attacher: Attacher,
  browserContextId: string | undefined,
  origins: string[],
): Promise<Map<string, StorageItems>> {
  const browserSession = attacher.session;
  const out = new Map<string, StorageItems>();
  const queue = [...origins];
  const reader = async () => {
    if (queue.length === 0) return;
    const page = await openReader(attacher, browserContextId);
    if (!page) return;
    try {
      for (let origin = queue.shift(); origin !== undefined; origin = queue.shift()) {
        const items = await bounded(readOne(page.session.send.bind(page.session), origin), null, READ_TIMEOUT_MS);
        if (!items) return;
        out.set(origin, items);
      }
    } finally {
      await bounded(browserSession.send("Target.closeTarget", { targetId: page.targetId }), undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READERS, origins.length) }, reader));
  return out;
}

async function openReader(
  attacher: Attacher,
  browserContextId: string | undefined,
): Promise<{ targetId: string; session: CDPSession } | null> {
  const browserSession = attacher.session;
  const created = await bounded(
    browserSession.send("Target.createTarget", {
      url: "about:blank",
      background: true,
      hidden: true,
      ...(browserContextId === undefined ? {} : { browserContextId }),
    }),
    null,
  );
  if (!created) return null;
  const session = await bounded(attacher.attachOwn(created.targetId), null);
  if (!session) {
    await bounded(browserSession.send("Target.closeTarget", { targetId: created.targetId }), undefined);
    return null;
  }
  session.on("Fetch.requestPaused", (e) => {
    void session
      .send("Fetch.fulfillRequest", {
        requestId: e.requestId,
        responseCode: 200,
        responseHeaders: [{ name: "content-type", value: "text/html; charset=utf-8" }],
        body: "",
      })
      .catch(() => {});
  });
  const enabled = await bounded(
    session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }).then(() => true),
    false,
  );
  if (!enabled) {
    await bounded(browserSession.send("Target.closeTarget", { targetId: created.targetId }), undefined);
    return null;
  }
  return { targetId: created.targetId, session };
}

async function readOne(send: Send, origin: string): Promise<StorageItems | null> {
  const nav = await send("Page.navigate", { url: `${origin}/` });
  if (nav.errorText) return null;
  const { entries } = await send("DOMStorage.getDOMStorageItems", {
    storageId: { storageKey: `${origin}/`, isLocalStorage: true },
  });
  return entries.map((e): [string, string] => [e[0] ?? "", e[1] ?? ""]);
}
