import { randomUUID } from "node:crypto";
import type { ElementHandle, Frame, Page } from "puppeteer-core";
import { abridge, NEAR } from "./abridge.ts";
import { markFrame, walkFrame } from "./dom-walk.ts";
import type { FrameCapture, PageElement, PageState, RawElement } from "./types.ts";

/**
 * Reads a page into a `PageState`: every frame (same- and cross-origin, through puppeteer's frame
 * tree) is walked in place by `walkFrame`, each child frame's text is spliced in where its iframe
 * sits, elements get page-wide indexes in reading order, and those indexes are written back to the
 * elements as `data-osprey-idx` so that `resolveElement` finds them again. The text is then
 * abridged (`abridge`): whole within a viewport's height above and below the viewport, beyond that
 * only headings and every element's marker with the start of its text, the rest counted in
 * `(… n characters)` lines (the agent scrolls or extracts to read it); `maxTextChars` caps what is
 * left.
 */

export interface CaptureOptions {
  /** Page text kept after abridging, in characters (element markers are always kept). Default 20,000. */
  maxTextChars?: number;
  /** Add a PNG of the viewport (for vision models). Default false. */
  screenshot?: boolean;
  /**
   * "page" (default): every element of the page, text far from the viewport abridged. "viewport":
   * only what lies within `VIEWPORT_MARGIN_PX` of the viewport, elements numbered from 1 among
   * those, and `outside` saying how much was left out above and below.
   */
  scope?: StateScope;
}

export type StateScope = "page" | "viewport";

/** How far above and below the viewport a viewport-scoped state reaches (Browser Use's Agent default, 500 px). */
export const VIEWPORT_MARGIN_PX = 500;

const DEFAULT_MAX_TEXT = 20_000;
/** Text read from one frame at most, in characters, before `abridge` and `maxTextChars` shorten it. */
const WALK_MAX_TEXT = 1_000_000;
/** How long one frame may take to answer; a frame that hangs (or is mid-navigation) is left out. */
const FRAME_TIMEOUT_MS = 5_000;

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | null> =>
  Promise.race([p.catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref())]);

/** Child frames of `parent`, by the key `walkFrame` wrote on their iframe element. */
async function childFramesByKey(parent: Frame): Promise<Map<number, Frame>> {
  const found = new Map<number, Frame>();
  const handles = await parent.$$("pierce/[data-osprey-frame]").catch(() => [] as ElementHandle<Element>[]);
  try {
    for (const h of handles) {
      const [key, frame] = await Promise.all([
        h.evaluate((el) => Number(el.getAttribute("data-osprey-frame"))),
        (h as ElementHandle<HTMLIFrameElement>).contentFrame().catch(() => null),
      ]);
      if (frame) found.set(key, frame);
    }
  } finally {
    await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
  }
  return found;
}

/** Visible text: lines trimmed, runs of spaces and empty lines removed. */
const tidy = (text: string): string =>
  text
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .filter((line) => line.length > 0)
    .join("\n");

/** Keeps the first `max` characters of page text, and every `[n]` marker after that. */
function truncate(text: string, max: number): { text: string; dropped: number } {
  let used = 0;
  let dropped = 0;
  const parts = text.split(/(\[\d+\])/);
  const kept = parts.map((part, i) => {
    if (i % 2 === 1) return part;
    if (used + part.length <= max) {
      used += part.length;
      return part;
    }
    const room = Math.max(0, max - used);
    used = max;
    dropped += part.length - room;
    return room > 0 ? `${part.slice(0, room)} ` : " ";
  });
  return { text: kept.join(""), dropped };
}

export async function capturePageState(page: Page, opts: CaptureOptions = {}): Promise<PageState> {
  const maxText = opts.maxTextChars ?? DEFAULT_MAX_TEXT;
  const frames = page.frames().filter((f) => !f.detached);
  const captures = new Map<Frame, FrameCapture>();
  const capture = randomUUID();
  await Promise.all(
    frames.map(async (f) => {
      // The top frame marks its elements [1…n] as it walks; markFrame below corrects that where the page numbers them otherwise.
      const cap = await withTimeout(
        f.evaluate(walkFrame, WALK_MAX_TEXT, f === page.mainFrame() ? capture : null),
        FRAME_TIMEOUT_MS,
      );
      if (cap) captures.set(f, cap);
    }),
  );
  const main = captures.get(page.mainFrame());
  if (!main) throw new Error("the page's main frame could not be read");
  const children = new Map<Frame, Map<number, Frame>>();
  await Promise.all(
    [...captures].map(async ([f, cap]) => {
      if (cap.frames.length) children.set(f, await childFramesByKey(f));
    }),
  );

  const elements: PageElement[] = [];
  const marks = new Map<Frame, number[]>();
  const { width, height } = main.scroll;
  const toElement = (raw: RawElement, index: number, path: string, dx: number, dy: number): PageElement => {
    const box = { ...raw.box, x: raw.box.x + dx, y: raw.box.y + dy };
    const inViewport = box.x < width && box.y < height && box.x + box.w > 0 && box.y + box.h > 0;
    const { box: _, ...rest } = raw;
    return { index, ...rest, ...(path ? { frame: path } : {}), inViewport, box };
  };
  const assemble = (frame: Frame, cap: FrameCapture, path: string, dx: number, dy: number, seen: Set<Frame>): string => {
    seen.add(frame);
    const own: number[] = [];
    marks.set(frame, own);
    const sentinels = /\uE000(\d+)\uE002|\uE001(\d+)\uE002|\uE003(-?\d+):(-?\d+)\uE002/g;
    return cap.text.replace(sentinels, (_m, local?: string, key?: string, top?: string, bottom?: string) => {
      // Where text lies, moved into the top page's viewport like the elements' boxes.
      if (top !== undefined) return `\uE003${Number(top) + dy}:${Number(bottom) + dy}\uE002`;
      if (local !== undefined) {
        const raw = cap.elements[Number(local)];
        if (!raw) return "";
        const index = elements.length + 1;
        own[Number(local)] = index;
        elements.push(toElement(raw, index, path, dx, dy));
        return `[${index}]`;
      }
      const slot = cap.frames.find((f) => f.key === Number(key));
      const child = children.get(frame)?.get(Number(key));
      const childCap = child ? captures.get(child) : undefined;
      if (!slot || !child || !childCap || seen.has(child)) return "\n";
      const childPath = path ? `${path}/${key}` : String(key);
      return `\n${assemble(child, childCap, childPath, dx + slot.box.x, dy + slot.box.y, seen)}\n`;
    });
  };
  const assembled = assemble(page.mainFrame(), main, "", 0, 0, new Set());
  const near = { top: -NEAR * height, bottom: (1 + NEAR) * height };
  const scope = opts.scope === "viewport" ? { top: -VIEWPORT_MARGIN_PX, bottom: height + VIEWPORT_MARGIN_PX } : undefined;
  const { text: short, abridged, outside } = abridge(assembled, (n) => elements[n - 1]?.box, near, scope);
  const cut = truncate(tidy(short), maxText);
  const { dropped } = cut;
  let text = cut.text;
  let shown = elements;
  if (scope) {
    // Only the elements left in the text are the model's, numbered 1… among themselves.
    const renumber = new Map<number, number>();
    shown = [];
    text = text.replace(/\[(\d+)\]/g, (_m, n: string) => {
      const el = elements[Number(n) - 1];
      if (!el) return "";
      let index = renumber.get(el.index);
      if (index === undefined) {
        index = shown.length + 1;
        renumber.set(el.index, index);
        shown.push({ ...el, index });
      }
      return `[${index}]`;
    });
    for (const own of marks.values()) for (let i = 0; i < own.length; i++) own[i] = renumber.get(own[i] ?? -1) ?? -1;
  }
  /** The top frame's elements numbered [1…n] in its own order: the marks its walk wrote already hold. */
  const marked = (f: Frame, indexes: number[]) =>
    f === page.mainFrame() &&
    indexes.length === main.elements.length &&
    Array.from(indexes, (n, i) => n === i + 1).every(Boolean);
  await Promise.all(
    [...marks]
      .filter(([f, indexes]) => !marked(f, indexes))
      .map(([f, indexes]) =>
        withTimeout(
          f.evaluate(
            markFrame,
            Array.from(indexes, (i) => i ?? -1),
            capture,
          ),
          FRAME_TIMEOUT_MS,
        ),
      ),
  );
  const state: PageState = {
    capture,
    url: main.url,
    title: main.title,
    scroll: main.scroll,
    elements: shown,
    text: dropped ? tidy(text) : text,
  };
  if (outside && (outside.above.elements || outside.above.chars || outside.below.elements || outside.below.chars)) {
    const { y, height: h, pageHeight } = main.scroll;
    state.outside = {
      above: { ...outside.above, px: Math.max(0, Math.round(y - VIEWPORT_MARGIN_PX)) },
      below: { ...outside.below, px: Math.max(0, Math.round(pageHeight - y - h - VIEWPORT_MARGIN_PX)) },
    };
  }
  if (main.modal) state.modal = true;
  if (abridged) state.abridgedChars = abridged;
  if (dropped) state.truncatedChars = dropped;
  if (opts.screenshot) state.screenshot = await page.screenshot({ type: "png", encoding: "base64" });
  return state;
}

/**
 * Runs in a frame: the element marked `[index]` by the capture `capture` (open shadow roots
 * included), if this frame's document is that capture's and the element is still a `<tag>`.
 */
export function findMarked(index: number, capture: string, tag: string): Element | null {
  if (document.documentElement?.getAttribute("data-osprey-capture") !== capture) return null;
  const selector = `[data-osprey-idx="${index}"]`;
  const search = (root: Document | ShadowRoot): Element | null => {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const el of Array.from(root.querySelectorAll("*"))) {
      const inner = el.shadowRoot ? search(el.shadowRoot) : null;
      if (inner) return inner;
    }
    return null;
  };
  const found = search(document);
  return found?.localName === tag ? found : null;
}

/**
 * The element `[index]` of `state`, or null when it is gone (the page navigated or re-rendered it,
 * or a later capture renumbered the page). One round trip per frame looked in, the element's own
 * frame first. The caller disposes the handle.
 */
export async function resolveElement(page: Page, state: PageState, index: number): Promise<ElementHandle<Element> | null> {
  const wanted = state.elements.find((e) => e.index === index);
  if (!wanted) return null;
  const frames = page.frames().filter((f) => !f.detached);
  // An element of the top document is looked for there first; one in a frame, in the child frames first.
  if (wanted.frame) frames.push(...frames.splice(0, 1));
  for (const frame of frames) {
    const handle = await frame.evaluateHandle(findMarked, index, state.capture, wanted.tag).catch(() => null);
    const el = handle?.asElement() as ElementHandle<Element> | null | undefined;
    if (el) return el;
    await handle?.dispose().catch(() => {});
  }
  return null;
}
