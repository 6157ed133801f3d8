/**
 * A paragraph or list item that is one link to another site: the thing the page points its reader
 * to ("DIY Lanterns" under a project's photo, "Amazon (Klein Tools)", "What is SEO? - Moz" in a list
 * of further reading), not the site's own navigation. The cleanup takes blocks of links for
 * furniture; such a line stays, and so does a list made of them, unless its words come back in
 * another such line (a "Read the full review" or "Compare deals with leasing.com" under every item
 * asks the reader to act).
 */
import { linkHost, sameSite, tagOf, textReader } from "./dom.ts";

/** Shorter link texts are labels ("Buy", "Here"), not what a story points to. */
const TEXT_MIN = 8;

/**
 * The paragraphs under `root` that are one link each to a site other than `host`, their words said
 * once, and the lists whose every item is such a link (a story's list of tools or sources).
 */
export function outboundLines(root: Element, host: string | undefined): Set<Element> {
  const out = new Set<Element>();
  if (!host) return out;
  const links = new LinkCounts(root);
  const textOf = textReader();
  const byText = new Map<string, Element[]>();
  for (const line of root.querySelectorAll("p, li")) {
    const text = outboundText(line, host, links, textOf);
    if (text === null) continue;
    const same = byText.get(text);
    if (same) same.push(line);
    else byText.set(text, [line]);
  }
  const lists = new Set<Element>();
  for (const lines of byText.values()) {
    const line = lines[0];
    if (lines.length !== 1 || !line) continue;
    out.add(line);
    if (tagOf(line) === "li" && line.parentElement) lists.add(line.parentElement);
  }
  // A list is kept whole when each of its items is such a line.
  for (const list of lists) {
    let all = true;
    for (let li = list.firstElementChild; li && all; li = li.nextElementSibling)
      if (textOf(li).trim() !== "" && outboundText(li, host, links, textOf) === null) all = false;
    if (all) out.add(list);
  }
  return out;
}

/**
 * The <a> elements under each element of a subtree, counted in one walk up to two (what a line
 * needs to know: none, its one link, or more): querySelector per line read every line's whole
 * subtree, so nested lists cost their depth times what they hold.
 */
class LinkCounts {
  private readonly counts = new Map<Element, number>();
  /** The one <a> under an element that has exactly one. */
  private readonly only = new Map<Element, Element>();

  constructor(root: Element) {
    this.count(root);
  }

  /** The element's one <a> element, or null when it has none or several. */
  oneLink(el: Element): Element | null {
    return this.counts.get(el) === 1 ? (this.only.get(el) ?? null) : null;
  }

  private count(el: Element): number {
    let n = 0;
    let link: Element | undefined;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      // querySelectorAll does not look into a template's content either.
      if (c.localName === "template") continue;
      if (c.localName === "a") {
        n++;
        link ??= c;
      }
      const under = this.count(c);
      if (under > 0) {
        n += under;
        link ??= this.only.get(c);
      }
    }
    n = Math.min(n, 2);
    this.counts.set(el, n);
    if (n === 1 && link) this.only.set(el, link);
    return n;
  }
}

/** The lower-cased text of `line` when it is one link, to a site other than `host`; else null. */
function outboundText(line: Element, host: string, links: LinkCounts, textOf: (el: Element) => string): string | null {
  const link = links.oneLink(line);
  if (!link?.hasAttribute("href")) return null;
  const text = textOf(line).replace(/\s+/g, " ").trim().toLowerCase();
  if (text.length < TEXT_MIN || text !== textOf(link).replace(/\s+/g, " ").trim().toLowerCase()) return null;
  const linked = linkHost(link.getAttribute("href") ?? "");
  return linked && !sameSite(linked, host) ? text : null;
}
