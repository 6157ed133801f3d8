/**
 * Facet panels of category and search pages: "Filters", "Filter by", "Refine" and under it lists
 * of brands, price ranges, colours and sizes, each a short option with a count. The class names
 * vary too much for the pruning to know them all; the panel's heading and its make do not. The
 * panel is the largest block that starts with such a heading and holds no prose and no more than
 * a share of the root: the item grid and the category's own text stay. A bare label, a block or an
 * inline element ("<span>Filters:</span>") before blocks of options, goes with the options after it.
 * So does a sort control's label ("Sort by:", "Sort: Best Match"): its menu is gone with the form
 * controls, and the label alone is a stray line above the grid.
 */
import { HEADING_TAGS, tagOf, textReader } from "./dom.ts";
import type { StatsMap } from "./score.ts";

const FACET_HEADING =
  /^(filters?( by| results)?|filter (&|and) sort|sort (&|and) filter|refine( by| results| search)?|narrow (by|results|your results)|shop by)\s*:?\s*(\(\d+\))?$/i;
/** A sort control's label, with the option it shows: "Sort by", "Sort By:", "Sort: Best Match", "Sorted by: Latest". */
const SORT_LABEL = /^sort(ed)?(\s+(by|order)\s*:?|\s*:)(\s*[^:]{1,30}:?)?$/i;
const SORT_CHARS = 40;
/** The label itself: a heading or a short block. */
const LABEL_CHARS = 30;
/** A panel never holds more than this share of the root's text (the grid is the rest). */
const PANEL_SHARE = 0.5;

/**
 * The first block of `el` that has text, looking through leading wrappers. The walks that ask it
 * of every block in turn pass one `memo` (the page unchanged meanwhile): each block's children are
 * then read once, not once per wrapper around it (a chain of wrappers over a run of empty blocks
 * cost the chain's depth times the run).
 */
export function firstTextBlock(el: Element, stats: StatsMap, memo?: Map<Element, Element | null>): Element | null {
  const known = memo?.get(el);
  if (known !== undefined) return known;
  let found: Element | null = null;
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const s = stats.get(c);
    if (!s) {
      // An inline element with text (a bare <span>Filters</span>) is the start itself.
      if ((c.textContent ?? "").trim() !== "") {
        found = c;
        break;
      }
      continue;
    }
    if (s.chars === 0) continue;
    found = s.chars <= LABEL_CHARS || HEADING_TAGS.has(tagOf(c)) ? c : firstTextBlock(c, stats, memo);
    break;
  }
  memo?.set(el, found);
  return found;
}

/** Item names: links this long are cards of a grid (a product's name), not facet options ("Canon (125)"). */
const NAME_CHARS = 25;
const NAMES_MAX = 3;

/** True when `el` holds the cards of a grid: more than NAMES_MAX links as long as an item's name. */
function holdsCards(el: Element): boolean {
  let names = 0;
  for (const a of el.querySelectorAll("a"))
    if ((a.textContent ?? "").trim().length >= NAME_CHARS && ++names > NAMES_MAX) return true;
  return false;
}

/** Removes facet panels inside `root`. */
export function dropFacetPanels(root: Element, stats: StatsMap): void {
  const limit = PANEL_SHARE * (stats.get(root)?.chars ?? 0);
  const doomed: Element[] = [];
  const firsts = new Map<Element, Element | null>();
  const textOf = textReader();
  // A bare label heads the facets that follow it as its siblings (brand, price, colour): they go
  // with it up to a block of prose, the cards of a grid or the share limit. Returns the last.
  const withFacets = (label: Element, chars: number): Element => {
    let last = label;
    for (let n = label.nextElementSibling; n; n = n.nextElementSibling) {
      const ns = stats.get(n);
      chars += ns?.chars ?? 0;
      if ((ns && ns.prose > 0) || chars > limit || holdsCards(n)) break;
      doomed.push(n);
      last = n;
    }
    return last;
  };
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s) {
        // An inline label ("<span>Filters:</span>") before blocks of options.
        const label = textOf(c).trim();
        if (label.length <= SORT_CHARS && SORT_LABEL.test(label)) {
          doomed.push(c);
          continue;
        }
        if (label.length <= LABEL_CHARS && FACET_HEADING.test(label) && c.nextElementSibling && stats.has(c.nextElementSibling)) {
          doomed.push(c);
          c = withFacets(c, label.length);
        }
        continue;
      }
      if (s.chars === 0) continue;
      if (s.chars <= SORT_CHARS && SORT_LABEL.test(textOf(c).replace(/\s+/g, " ").trim())) {
        doomed.push(c);
        continue;
      }
      if (s.prose === 0 && s.chars <= limit) {
        const first = s.chars > LABEL_CHARS ? firstTextBlock(c, stats, firsts) : c;
        if (first && FACET_HEADING.test(textOf(first).trim()) && !holdsCards(c)) {
          doomed.push(c);
          if (first === c) c = withFacets(c, s.chars);
          continue;
        }
      }
      if (c.firstElementChild) visit(c);
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}
