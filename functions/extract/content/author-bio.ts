/**
 * The author's bio under a story: a paragraph in the second half of the text that starts with the
 * name of the page's own author (its metadata: meta author, JSON-LD, byline) and goes on to say who
 * they are ("Jane Doe is a freelance writer...", "... has covered tech for 15 years"). Bio boxes
 * with a class of their own go in the pruning (ALWAYS in prune.ts); these are the plain paragraphs
 * a template or the writer appends. A paragraph about someone else, or one that names the author
 * without such a verb ("Jane Doe told us..."), stays; so does a name of one word (a brand, a team).
 */
import { textStats } from "./dom.ts";

const BIO_VERB = /^(is|was|has|writes|covers|joined|serves)\b/;
/** A bio is a few sentences; a longer block is part of the story. */
const BIO_MAX = 1000;
const BIO_MIN = 40;
/** A paragraph holding this share of the text is the story itself (a profile of its writer). */
const STORY_SHARE = 0.3;

/** The author field's names ("Ann Lee, Bo Chan and Cy Diaz"), lower-cased; names of one word are left out. */
function authorNames(author: string): string[] {
  return author
    .split(/,|\band\b|&/)
    .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
    .filter((s) => s.includes(" ") && s.length > 5);
}

export function dropAuthorBio(root: Element, author: string): void {
  const names = authorNames(author);
  if (names.length === 0) return;
  const paragraphs = [...root.querySelectorAll("p")];
  const total = textStats(root).chars;
  for (const p of paragraphs.slice(Math.floor(paragraphs.length / 2))) {
    const t = (p.textContent ?? "").replace(/\s+/g, " ").trim();
    if (t.length < BIO_MIN || t.length > BIO_MAX || t.length > STORY_SHARE * total) continue;
    const low = t.toLowerCase();
    const name = names.find((n) => low.startsWith(n));
    if (name && BIO_VERB.test(low.slice(name.length).trim())) p.remove();
  }
}
