import { CDATA_SECTION_NODE, ELEMENT_NODE, TEXT_NODE } from "./dom.ts";
import { SelectorTooCostly, selectAll, selectorBudget } from "./select.ts";
import { cssEscape, findInvalidSelectors } from "./selector-syntax.ts";
import { SKIP_TAGS } from "./tags.ts";

export { cssEscape, findInvalidSelectors };

export type SelectorOutcome =
  | { ok: true; root: Element | null; unmatched: string[] }
  | { ok: false; unmatched: string[]; candidates: string[] }
  /** `selector` ran past the page's budget (select.ts): the lists could not be applied. */
  | { ok: false; tooCostly: string };

/** Spec 2.6: at most 10 retry hints. */
const MAX_CANDIDATES = 10;
/** Landmarks offered as hints when present, most useful first. */
const LANDMARKS = [
  "main",
  '[role="main"]',
  "article",
  '[role="article"]',
  '[itemprop="articleBody"]',
  "section[role]",
  "section",
];
/** Elements whose ids are never content hints. */
const NOT_CONTENT = new Set([...SKIP_TAGS, "html", "body", "nav", "header", "footer", "aside", "form", "menu", "dialog"]);
const BOILERPLATE_ID =
  /(^|[-_])(nav|navbar|menu|footer|header|sidebar|cookies?|banner|modal|popup|social|share|breadcrumbs?)([-_]|$)/i;
/** Below this much own non-link text an element is not "content-heavy". */
const MIN_CONTENT_CHARS = 50;

/**
 * Applies `exclude_selectors` then `include_selectors` to `document` (spec 4.6 rules 3–5).
 * Excluded elements are removed from the document in place (entries matching nothing are ignored).
 * Without an include list the result's root is null and the caller extracts from the document.
 * With one, the elements matched by any entry are copied, in document order and without repeating an
 * element nested in another match, into a new container (`root`) with scripts and styles removed.
 * Some entries matching: ok with the misses in `unmatched`; none matching: not ok, with every entry in
 * `unmatched` and up to 10 `candidates` (landmarks and `#id`s of content-heavy elements). An entry
 * that runs past the page's selector budget: not ok, naming it (`tooCostly`).
 */
export function applySelectors(
  document: Document,
  include: string[] | undefined,
  exclude: string[] | undefined,
): SelectorOutcome {
  try {
    return apply(document, include, exclude);
  } catch (err) {
    if (err instanceof SelectorTooCostly) return { ok: false, tooCostly: err.selector };
    throw err;
  }
}

function apply(document: Document, include: string[] | undefined, exclude: string[] | undefined): SelectorOutcome {
  // One budget for the page's selectors, include and exclude: a costly one cannot stall the fetch.
  const budget = selectorBudget();
  for (const selector of exclude ?? []) {
    for (const el of selectAll(document, selector, budget)) if (el !== document.documentElement) el.remove();
  }
  if (!include || include.length === 0) return { ok: true, root: null, unmatched: [] };

  const matched = new Set<Element>();
  const unmatched: string[] = [];
  for (const selector of include) {
    const found = selectAll(document, selector, budget);
    if (found.length === 0) unmatched.push(selector);
    for (const el of found) matched.add(el);
  }
  if (matched.size === 0) return { ok: false, unmatched: [...include], candidates: candidateSelectors(document) };

  const root = document.createElement("div");
  const take = (node: Element): void => {
    for (let n = node.firstElementChild; n; n = n.nextElementSibling) {
      if (matched.has(n)) root.appendChild(n.cloneNode(true));
      else take(n);
    }
  };
  const top = document.documentElement;
  if (top && matched.has(top)) root.appendChild(top.cloneNode(true));
  else if (top) take(top);
  for (const el of [...root.querySelectorAll("script, style, noscript, template")]) el.remove();
  return { ok: true, root, unmatched };
}

interface Weighed {
  el: Element;
  id: string;
  score: number;
  parent: Weighed | null;
  redundant: boolean;
}

/**
 * Retry hints for selector_not_matched (spec 2.6): landmark selectors present on the page, then
 * `#id` selectors of elements ranked by their non-link text. An id'd wrapper whose id'd descendant
 * holds nearly all of its text gives way to that descendant, which is the more precise hint.
 */
export function candidateSelectors(document: Document): string[] {
  const out: string[] = [];
  for (const selector of LANDMARKS) {
    if (out.length >= 4) break;
    const el = selectAll(document, selector)[0];
    if (el && (el.textContent ?? "").trim() !== "" && !(selector === "section" && out.includes("section[role]")))
      out.push(selector);
  }
  const weighed: Weighed[] = [];
  const walk = (node: Node, parent: Weighed | null, inLink: boolean): number => {
    let own = 0;
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) {
        if (!inLink) own += (n.nodeValue ?? "").trim().length;
        continue;
      }
      if (n.nodeType !== ELEMENT_NODE) continue;
      const el = n as Element;
      const tag = el.localName;
      if (SKIP_TAGS.has(tag)) continue;
      const id = el.getAttribute("id")?.trim();
      const entry =
        id && !NOT_CONTENT.has(tag) && !BOILERPLATE_ID.test(id) ? { el, id, score: 0, parent, redundant: false } : null;
      const score = walk(el, entry ?? parent, inLink || tag === "a");
      if (entry) {
        entry.score = score;
        weighed.push(entry);
      }
      own += score;
    }
    return own;
  };
  walk(document.body ?? document.documentElement, null, false);
  for (const w of weighed) if (w.parent && w.score >= 0.9 * w.parent.score) w.parent.redundant = true;
  const seen = new Set(out);
  const ranked = weighed.filter((w) => !w.redundant && w.score >= MIN_CONTENT_CHARS).sort((a, b) => b.score - a.score);
  for (const w of ranked) {
    if (out.length >= MAX_CANDIDATES) break;
    const selector = `#${cssEscape(w.id)}`;
    // only hints that select this very element here (ids can be duplicated or odd)
    if (seen.has(selector) || selectAll(document, selector)[0] !== w.el) continue;
    seen.add(selector);
    out.push(selector);
  }
  return out;
}
