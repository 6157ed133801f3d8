/**
 * The thread's title printed again as a heading above its posts: an h2 when the template keeps
 * its h1 for the site's name (phpBB's topic-title), a heading over the opening post, a subject
 * line. The page's title is given apart (the title heading, og:title, <title>): the thread's
 * text is what was posted. Only a heading before the first prose of the thread goes; a post
 * that heads its words with the thread's title keeps it.
 */
import type { StatsMap } from "./score.ts";

const HEADING = new Set(["h1", "h2", "h3", "h4"]);
/** The separators between a page's title and the site's name in <title> ("Topic - Forum", "Topic | Site"). */
const TITLE_SEPARATOR = / [-|–—:•·] /;
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** The page's title as its metadata gives it: og:title, <title>, and <title> up to the site's name. */
function pageTitles(document: Document): Set<string> {
  const out = new Set<string>();
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute("content") ?? "";
  const title = document.querySelector("title")?.textContent ?? "";
  for (const t of [og, title, title.split(TITLE_SEPARATOR)[0] ?? ""]) {
    const n = norm(t);
    if (n.length >= 4) out.add(n);
  }
  return out;
}

/** Removes the headings above the thread's first prose that repeat the page's title. */
export function dropTitleEcho(root: Element, stats: StatsMap): void {
  const titles = pageTitles(root.ownerDocument);
  if (titles.size === 0) return;
  const doomed: Element[] = [];
  const visit = (el: Element): boolean => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (HEADING.has(c.localName)) {
        if (titles.has(norm(c.textContent ?? ""))) doomed.push(c);
        continue;
      }
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      // The first post's words: what follows is the thread.
      if (s.prose > 0 && !c.firstElementChild) return true;
      if (visit(c) || s.prose > 0) return true;
    }
    return false;
  };
  visit(root);
  for (const d of doomed) d.remove();
}
