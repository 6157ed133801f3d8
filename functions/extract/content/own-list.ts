/**
 * A category page's own list of entries, named as recirculation by its theme ("recirc-list",
 * "related-posts") and so pruned as furniture with it. When such a grid of linked entries holds
 * most of the text of the page's <main> (its chunks together: a list served in parts between
 * ads), it is the page's list, not links to other pages beside the content. Inside it, the
 * list's own wrappers, holding most of its text, share its name and stay too.
 */
import { tagOf } from "./dom.ts";

type Measured = Map<Element, { chars: number; linkChars: number }>;

/** The list must hold more than this share of <main>'s text (or of the own list around it). */
const MAIN_SHARE = 0.5;
/** A <main> with less text than this is no page of entries. */
const MAIN_MIN = 500;

/**
 * True when `el` (marked as furniture by its class, `chars` long) is the page's own list: under
 * `main`, it and its chunks hold most of main's text and it holds a grid of linked entries; or,
 * inside such a `list`, it holds most of the list's text.
 */
export function isOwnList(el: Element, chars: number, main: Element | null, list: Element | null, measured: Measured): boolean {
  if (list) return chars > MAIN_SHARE * (measured.get(list)?.chars ?? 0);
  const mainChars = main ? (measured.get(main)?.chars ?? 0) : 0;
  return mainChars > MAIN_MIN && chunkedChars(el, measured) > MAIN_SHARE * mainChars && entryGrid(el);
}

/** The page's main element for `el`'s subtree: `el` when it is one, else the one around it. */
export function mainOf(el: Element, tag: string, main: Element | null): Element | null {
  return main ?? (tag === "main" || el.getAttribute("role") === "main" ? el : null);
}

/** Entries in a grid: this many children of one tag, each holding a link. */
const GRID_ENTRIES = 6;

/** True when `el` or one of its children holds GRID_ENTRIES linked children of one tag. */
function entryGrid(el: Element): boolean {
  if (linkedChildren(el)) return true;
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (linkedChildren(c)) return true;
  return false;
}

function linkedChildren(box: Element): boolean {
  if (box.childElementCount < GRID_ENTRIES) return false;
  const counts = new Map<string, number>();
  for (let c = box.firstElementChild; c; c = c.nextElementSibling) {
    const t = tagOf(c);
    if (t !== "a" && !c.querySelector("a[href]")) continue;
    const n = (counts.get(t) ?? 0) + 1;
    if (n >= GRID_ENTRIES) return true;
    counts.set(t, n);
  }
  return false;
}

/**
 * Text of `el` and of its siblings of the same class: a list served in chunks ("recirc-list
 * container" 1, 2, 3 ... between ads) is one list.
 */
function chunkedChars(el: Element, measured: Measured): number {
  const cls = el.getAttribute("class");
  const parent = el.parentElement;
  if (!cls || !parent) return measured.get(el)?.chars ?? 0;
  let chars = 0;
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling)
    if (c.getAttribute("class") === cls) chars += measured.get(c)?.chars ?? 0;
  return chars;
}
