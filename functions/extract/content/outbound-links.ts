/**
 * A paragraph or list item that is one link to another site: the thing the page points its reader
 * to ("DIY Lanterns" under a project's photo, "Amazon (Klein Tools)", "What is SEO? - Moz" in a list
 * of further reading), not the site's own navigation. The cleanup takes blocks of links for
 * furniture; such a line stays, and so does a list made of them, unless its words come back in
 * another such line (a "Read the full review" or "Compare deals with leasing.com" under every item
 * asks the reader to act).
 */
import { linkHost, sameSite, tagOf } from "./dom.ts";

/** Shorter link texts are labels ("Buy", "Here"), not what a story points to. */
const TEXT_MIN = 8;

/**
 * The paragraphs under `root` that are one link each to a site other than `host`, their words said
 * once, and the lists whose every item is such a link (a story's list of tools or sources).
 */
export function outboundLines(root: Element, host: string | undefined): Set<Element> {
  const out = new Set<Element>();
  if (!host) return out;
  const byText = new Map<string, Element[]>();
  for (const line of root.querySelectorAll("p, li")) {
    const text = outboundText(line, host);
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
      if ((li.textContent ?? "").trim() !== "" && outboundText(li, host) === null) all = false;
    if (all) out.add(list);
  }
  return out;
}

/** The lower-cased text of `line` when it is one link, to a site other than `host`; else null. */
function outboundText(line: Element, host: string): string | null {
  const link = line.querySelector("a[href]");
  if (!link || line.querySelectorAll("a").length !== 1) return null;
  const text = (line.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  if (text.length < TEXT_MIN || text !== (link.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase()) return null;
  const linked = linkHost(link.getAttribute("href") ?? "");
  return linked && !sameSite(linked, host) ? text : null;
}
