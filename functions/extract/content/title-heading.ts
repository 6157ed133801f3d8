/**
 * The page's title heading (its <h1>), kept in front of the main content. The content search
 * starts from where prose concentrates, so a headline that sits just above the prose container
 * (an article header, a hero block, a product's name row) is outside the chosen root, and the
 * article cleanup drops headlines inside it with the bylines; yet a reader of the Markdown
 * expects the page to start with its title. It is found before pruning (which removes page
 * headers, where such headings often live) and put back when it sits inside or close before the
 * chosen root. A site name in an <h1> (a logo, a link home) is no title.
 */
import { tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** The first h1s looked at; pages with more use h1 for every section. */
const MAX_H1 = 6;
const MAX_TITLE_CHARS = 300;
/** Text between the heading and the root (bylines, dates, a lead image's credit) that still counts as adjacent. */
const MAX_GAP_CHARS = 400;
/** How far above the root the heading's nearest common ancestor may be. */
const MAX_LEVELS = 5;
const LOGO = /(^|[\s_-])(logo|brand|branding|site-?(title|name|logo|branding)|masthead|navbar)([\s_-]|$)/i;

export interface TitleCandidate {
  el: Element;
  text: string;
  /** The heading's ancestors before pruning, nearest first. */
  chain: Element[];
  /** Document order of every element before pruning (for "comes before the root"). */
  order: Map<Element, number>;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();

/** The page's own name for itself (og:title, <title>), for telling a title heading from others. */
function pageTitles(document: Document): string[] {
  const out: string[] = [];
  for (const sel of ['meta[property="og:title"]', 'meta[name="twitter:title"]']) {
    const v = document.querySelector(sel)?.getAttribute("content");
    if (v) out.push(norm(v));
  }
  const t = document.querySelector("title")?.textContent;
  if (t) out.push(norm(t));
  return out.filter(Boolean);
}

function siteName(document: Document): string {
  return norm(document.querySelector('meta[property="og:site_name"]')?.getAttribute("content") ?? "");
}

/** An h1 that names the site, not the page: logo classes around it, a lone link home, an image only. */
function isLogo(h1: Element, text: string, site: string, url: string): boolean {
  let el: Element | null = h1;
  for (let i = 0; el && i < 4; i++, el = el.parentElement) {
    if (LOGO.test(`${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`)) return true;
  }
  if (site !== "" && norm(text) === site) return true;
  if (text.length < 3 && h1.querySelector("img, svg, picture")) return true;
  const links = h1.querySelectorAll("a[href]");
  if (links.length === 1) {
    const href = links[0]?.getAttribute("href") ?? "";
    try {
      const u = new URL(href, url);
      if (u.pathname === "/" && u.search === "" && (links[0]?.textContent?.trim().length ?? 0) >= text.length - 2) return true;
    } catch {
      // An unparsable link says nothing.
    }
  }
  return false;
}

/** Loosely the same title: one contains the other (titles carry " | Site" tails, headings kickers). */
function matchesTitle(text: string, titles: string[]): boolean {
  const t = norm(text);
  return t.length > 0 && titles.some((title) => title.includes(t) || (title.length >= 12 && t.includes(title)));
}

/** Finds the title heading before pruning; null when the page has no h1 that names the page. */
export function findTitleHeading(document: Document, body: Element, url: string): TitleCandidate | null {
  const h1s = body.querySelectorAll("h1");
  if (h1s.length === 0) return null;
  const titles = pageTitles(document);
  const site = siteName(document);
  let first: { el: Element; text: string } | null = null;
  let chosen: { el: Element; text: string } | null = null;
  let seen = 0;
  for (const h1 of h1s) {
    if (++seen > MAX_H1) break;
    const text = (h1.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text === "" || text.length > MAX_TITLE_CHARS || isLogo(h1, text, site, url)) continue;
    first ??= { el: h1, text };
    if (matchesTitle(text, titles)) {
      chosen = { el: h1, text };
      break;
    }
  }
  chosen ??= first;
  if (!chosen) return null;
  const chain: Element[] = [];
  for (let a = chosen.el.parentElement; a; a = a.parentElement) chain.push(a);
  return { ...chosen, chain, order: documentOrder(body) };
}

function documentOrder(body: Element): Map<Element, number> {
  const order = new Map<Element, number>();
  let n = 0;
  const stack: Element[] = [body];
  while (stack.length > 0) {
    const el = stack.pop() as Element;
    order.set(el, n++);
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  return order;
}

/**
 * The heading to put in front of `root` after extraction, or null: when the root already shows
 * it, when it came after the content's start, or when other content lies between the two.
 */
export function titleForRoot(candidate: TitleCandidate | null, root: Element, stats: StatsMap): Element | null {
  if (!candidate || candidate.el.contains(root)) return null;
  const { el, text, chain, order } = candidate;
  const want = norm(text);
  for (const h of root.querySelectorAll("h1, h2")) if (norm(h.textContent ?? "") === want) return null;
  // Inside the root at the start (the cleanup took it for a headline to drop): put it back.
  if (chain.includes(root) || el === root) return el.parentElement && root.contains(el) ? null : el;
  const lca = chain.find((a) => a.contains(root));
  const h1Order = order.get(el);
  const rootOrder = order.get(root);
  if (!lca || h1Order === undefined || rootOrder === undefined || h1Order > rootOrder) return null;
  let gap = 0;
  let levels = 0;
  for (let e: Element | null = root; e && e !== lca; e = e.parentElement, levels++) {
    if (levels >= MAX_LEVELS) return null;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) {
      const o = order.get(s);
      if (o === undefined || o < h1Order || s.contains(el)) break;
      gap += stats.get(s)?.chars ?? 0;
      if (gap > MAX_GAP_CHARS) return null;
    }
  }
  return tagOf(el) === "h1" ? el : null;
}
