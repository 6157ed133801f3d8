/**
 * Product carousels ("customers also viewed", "similar items", "complete the look"): on a product
 * page, a run of sibling cards that each name another product, show its price and link to it.
 * The product itself has one price block (its options have prices but no links of their own), so
 * a run of priced, linked cards outside the name heading is somebody else's products. The run
 * goes with the heading and controls around it (the smallest wrapper that holds little else),
 * when that heading names other products ("customers also viewed", "similar items").
 */
import { ELEMENT_NODE, TEXT_NODE, tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/**
 * Cards in a run: fewer are an offer block or two variants side by side; more than a carousel
 * shows is a category's own grid (a category page that also calls itself a product).
 */
const CARDS_MIN = 3;
const CARDS_MAX = 16;
/** A card's text: a product name and a price, not a paragraph of description. */
const CARD_MAX_CHARS = 400;
/** A wrapper is the carousel's own while what it adds besides the cards is this short (a heading, arrows). */
const WRAPPER_EXTRA = 120;

/** A price: a currency sign or code beside a number, either way round. */
const PRICE =
  /(?:[$€£¥₹₩]|\b(?:USD|EUR|GBP|CAD|AUD|CHF|JPY|SEK|NOK|DKK|PLN|CZK|INR|BRL|R\$|kr|zł|Kč|Rs\.?))\s?\d|\d(?:[.,]\d{1,2})?\s?(?:[$€£¥₹]|\b(?:USD|EUR|GBP|kr|zł|Kč|руб|₽)\b)/;

/** True when `el` reads as a card of another product: a link, a price, short text. */
function isCard(el: Element, stats: StatsMap): boolean {
  const s = stats.get(el);
  // Table rows with prices are a price list or a comparison, not cards.
  if (!s || s.chars === 0 || s.chars > CARD_MAX_CHARS || s.prose > 0 || tagOf(el) === "tr") return false;
  if (!el.querySelector("a[href]") && tagOf(el) !== "a") return false;
  return PRICE.test(el.textContent ?? "");
}

const HEADING = /^h[2-6]$/;
const TITLE_CHARS = 80;
/** Titles of strips of other products, in the languages the benchmark pages use most. */
const OTHER_PRODUCTS =
  /\b(also|similar|related|recommend\w*|more from|how about|viewed|bought|complete the look|sponsored|you (may|might)|together|other items|recently|customers|people)\b|ähnlich|auch gekauft|similaires|vous aimerez|también|similares|relacionados|simili|potrebbe/i;

/** The text of the first heading in `wrapper` outside the cards, if any. */
function titleOf(wrapper: Element, list: Element): string | null {
  for (const h of wrapper.querySelectorAll("h2, h3, h4, h5, h6")) if (!list.contains(h)) return h.textContent;
  return null;
}

/** Containers whose element children include a run of CARDS_MIN product cards of one tag. */
function carouselLists(root: Element, stats: StatsMap): Element[] {
  const found: Element[] = [];
  const visit = (el: Element) => {
    if (el.childElementCount >= CARDS_MIN) {
      const byTag = new Map<string, number>();
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (!isCard(c, stats)) continue;
        byTag.set(c.tagName, (byTag.get(c.tagName) ?? 0) + 1);
      }
      for (const n of byTag.values())
        if (n >= CARDS_MIN && n <= CARDS_MAX) {
          found.push(el);
          return;
        }
    }
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.firstElementChild) visit(c);
  };
  visit(root);
  return found;
}

/**
 * Removes the product carousels inside `root` with their headings. `name` (the product's h1)
 * is never removed, nor anything that holds it. On a category page (`grid`) the largest run of
 * cards is the page's own grid and stays; the smaller ones ("recently viewed") go.
 */
export function dropCarousels(root: Element, stats: StatsMap, name: Element | null, grid: boolean): void {
  const lists = carouselLists(root, stats);
  const chars = (el: Element) => stats.get(el)?.chars ?? 0;
  const main = grid ? lists.reduce<Element | null>((a, l) => (a && chars(a) >= chars(l) ? a : l), null) : null;
  for (const list of lists) {
    if (list === main || (name && list.contains(name)) || (main && list.contains(main))) continue;
    const cards = stats.get(list)?.chars ?? 0;
    let top = list;
    for (let p = list.parentElement; p && p !== root; p = p.parentElement) {
      const ps = stats.get(p);
      if (!ps) continue;
      if ((name && p.contains(name)) || ps.chars - cards > WRAPPER_EXTRA) break;
      top = p;
    }
    // Only a strip titled as other products ("Customers also viewed"): a category page's own
    // strips ("New arrivals", "Hot deals") are its content.
    const prev = top.previousElementSibling;
    const title = titleOf(top, list) ?? (prev && (stats.get(prev)?.chars ?? 0) <= TITLE_CHARS ? prev.textContent : null);
    if (!title || !OTHER_PRODUCTS.test(title)) continue;
    if (prev && HEADING.test(tagOf(prev))) prev.remove();
    top.remove();
  }
}

/**
 * Headings of sections that show other products ("Similar items", "Explore related items",
 * "Others like you also bought", "Best selling in …", "Featured products"), at the start of the heading.
 */
const OTHER_PRODUCTS_HEADING =
  /^(similar|related (items|products)|explore related|best[- ]?sell(ing|ers)\b|featured products|top sellers|more (products|items) (from|like|by)|save on\b|(customers|people|others)( like you| who)? (also )?(bought|viewed|liked)|frequently bought|you (may|might) also|(your )?recently viewed|sponsored products|compare (with )?similar|shop similar|complete (the|your) (look|order|set|outfit|setup|kit|purchase)\b|add the essentials|(add|choose|select|pick) (your |some )?(add-?ons|extras|accessories)\b|buy (a|the) bundle|bundles? (and|&) save|outfit inspiration|shop the look|(style|wear|pair) (it|this|them) with|goes (well )?with|you('ll| will) also (need|like|love)|((recommended|compatible|popular|essential|matching|most popular) )?accessories\b(?! included)|produits complémentaires|(all|other) (listings|offers|sellers)\b|more buying (options|choices)|ähnliche|produits similaires|productos (similares|relacionados)|prodotti simili)/i;
/**
 * Headings of a marketplace listing's seller card ("About this seller", "Meet your sellers",
 * "Seller feedback"): the seller's name, rating and contact buttons, the same beside every item
 * the seller lists. Like a strip of other products it is cards and buttons, not the description.
 */
const SELLER_HEADING = /^(about (this|the) seller|meet (your|the) sellers?|seller feedback)\b/i;
const SECTION_HEADING_CHARS = 80;
/** A section of other products is cards and names: one that is mostly prose is the product's own text. */
const SECTION_PROSE = 0.3;

/**
 * Removes the sections a product page titles as other products or as the seller's card, whatever
 * their cards look like (cards without prices or links the carousel rule needs), each with its
 * section (headedSection).
 * A title set in a block styled as a heading ("<p class=…>Frequently Bought Together</p>") goes
 * with the block it leads (titledBlock).
 */
export function dropOtherProductSections(root: Element, stats: StatsMap, name: Element | null): void {
  const doomed: Element[][] = [];
  const total = stats.get(root)?.chars ?? 0;
  for (const h of root.querySelectorAll(`h2, h3, h4, ${TITLE_TAGS}`)) {
    const heading = HEADING.test(tagOf(h));
    // Cheap length check first: a big container's text would be built for nothing.
    if ((stats.get(h)?.chars ?? 0) > SECTION_HEADING_CHARS) continue;
    if (!heading && (h.querySelector(TITLE_INNER) || !oneRun(h))) continue;
    const title = (h.textContent ?? "").trim();
    if (title.length > SECTION_HEADING_CHARS || !(OTHER_PRODUCTS_HEADING.test(title) || SELLER_HEADING.test(title))) continue;
    // A heading-like block with a sentence's stops is a line of text ("Save on a new Mac when you trade in.").
    if (!heading && SENTENCE.test(title)) continue;
    const section = heading ? headedSection(h, root, name) : titledBlock(h, root, name, stats, total);
    if (!section) continue;
    let chars = 0;
    let prose = 0;
    for (const el of section) {
      chars += stats.get(el)?.chars ?? 0;
      prose += stats.get(el)?.prose ?? 0;
    }
    if (prose <= SECTION_PROSE * chars) doomed.push(section);
  }
  for (const section of doomed) for (const el of section) el.remove();
}

/**
 * Blocks that can title a strip without being headings: themes set "Frequently bought together"
 * or "Add the essentials" in a <p>, <div> or <span> styled as a heading. Such a title holds its
 * words only, in one run of text (no links, lists or blocks: then it is a card, a paragraph or a
 * label with its value) and no full stops.
 */
const TITLE_TAGS = "p, div, span, strong, b, h5, h6";
const SENTENCE = /[.!?]/;
const TITLE_INNER = "a, p, div, ul, ol, li, table, button, h1, h2, h3, h4, h5, h6";
/** A block holding this share of the root is the page's wrapper that happens to start with the title. */
const BLOCK_SHARE = 0.5;

/**
 * The block a heading-like title (not a heading element) leads: the highest ancestor, up to
 * `root`, whose text starts with the title, that holds no more than BLOCK_SHARE of the root, is
 * not mostly prose and does not hold `name` (the product's name). Null when what follows the
 * title in that block has neither a link nor a price (a spec row "Accessories: windscreen").
 */
function titledBlock(title: Element, root: Element, name: Element | null, stats: StatsMap, total: number): Element[] | null {
  let top: Element = title;
  for (let p = title.parentElement; p && p !== root; p = p.parentElement) {
    const s = stats.get(p);
    if (!s) continue;
    if ((name && p.contains(name)) || s.chars > BLOCK_SHARE * total || s.prose > SECTION_PROSE * s.chars) break;
    if (!leads(p, top, stats)) break;
    top = p;
  }
  if (top === title) return [title];
  const rest = (top.textContent ?? "").replace(title.textContent ?? "", "");
  if (rest.trim() !== "" && !top.querySelector("a[href]") && !PRICE.test(rest)) return null;
  return [top];
}

/** True when `el`'s text is one run of text (a label and its value are two: "Accessories" "Pouch"). */
function oneRun(el: Element): boolean {
  let runs = 0;
  const visit = (node: Node) => {
    for (let c = node.firstChild; c && runs < 2; c = c.nextSibling) {
      if (c.nodeType === TEXT_NODE) {
        if ((c.textContent ?? "").trim() !== "") runs++;
      } else if (c.nodeType === ELEMENT_NODE) visit(c);
    }
  };
  visit(el);
  return runs === 1;
}

/** True when `inner` is the first child of `el` with text: `el`'s text starts with it. */
function leads(el: Element, inner: Element, stats: StatsMap): boolean {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c === inner || c.contains(inner)) return true;
    const s = c.nodeType === ELEMENT_NODE ? stats.get(c as Element) : undefined;
    if (s ? s.chars > 0 : (c.textContent ?? "").trim() !== "") return false;
  }
  return false;
}

/**
 * The section a heading (h2-h6) titles: the largest ancestor inside `root` in which it is the only
 * heading of its rank or above, or, in flat markup, the heading and its siblings up to the next
 * such heading; never anything holding `name` (the product's name).
 */
export function headedSection(h: Element, root: Element, name: Element | null): Element[] {
  const rank = Number(tagOf(h).slice(1));
  const peers = Array.from({ length: rank }, (_, i) => `h${i + 1}`).join(", ");
  let top: Element = h;
  for (let p = h.parentElement; p && p !== root; p = p.parentElement) {
    if ((name && p.contains(name)) || p.querySelectorAll(peers).length > 1) break;
    top = p;
  }
  const section = [top];
  if (top === h)
    for (let n = h.nextElementSibling; n; n = n.nextElementSibling) {
      if (HEADING.test(tagOf(n)) && Number(tagOf(n).slice(1)) <= rank) break;
      if (n.querySelector(peers) || (name && n.contains(name))) break;
      section.push(n);
    }
  return section;
}
