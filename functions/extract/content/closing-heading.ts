/**
 * A heading that closes an article with nothing under it: the title of a block the cleanup took
 * away ("Related Posts", "Related Insights", "Keep Reading", "More you might like" over cards that
 * went as teasers or link lists) or of a widget that never filled in. A heading titles what
 * follows it; with nothing following, it says nothing of the story. The last one goes (some posts
 * set their list items as headings); a closing question to the readers stays.
 * Also a short link alone on the article's last line ("Back to Blog", "Next Post", "View author
 * page", "Download Guide"): the way out of the page, not its words. A link inside the last
 * sentence, a list's last item, an address to write to and a printed URL stay.
 */
import { HEADING_TAGS, tagOf } from "./dom.ts";

/**
 * The last element of `el` that holds text, descending through containers to a heading or a text
 * block; `el` itself when its own text (a text node after its children) is the last words.
 */
function lastTextBlock(el: Element): Element | null {
  for (let n = el.lastChild; n; n = n.previousSibling) {
    if ((n.textContent ?? "").trim() === "") continue;
    if (n.nodeType !== 1) return el;
    const c = n as Element;
    if (HEADING_TAGS.has(tagOf(c)) || !c.firstElementChild) return c;
    return lastTextBlock(c) ?? c;
  }
  return null;
}

/** Removes the heading that closes the article inside `root` with nothing after it. */
export function dropClosingHeadings(root: Element): void {
  const last = lastTextBlock(root);
  if (!last || last === root || !HEADING_TAGS.has(tagOf(last))) return;
  // A question to the readers ("What do you think?") closes a post as its last words.
  if ((last.textContent ?? "").trim().endsWith("?")) return;
  last.remove();
}

/** A way out is a few words; a longer link line is a sentence ("Check out our full review"). */
const LINK_LINE_CHARS = 40;
const ADDRESS = /^(mailto|tel):/i;
const URL_TEXT = /^\W*(https?:\/\/|www\.)|@|\.(com|org|net|io)\b/i;

const squash = (el: Element) => (el.textContent ?? "").replace(/\s+/g, " ").trim();

/** Removes a short link standing alone as the last line of the article inside `root`. */
export function dropClosingLinkLine(root: Element): void {
  const block = lastTextBlock(root);
  // The link itself, or the link around the last block (a button's label set in a <p>).
  const last = block && block !== root ? (tagOf(block) === "a" ? block : block.closest("a")) : null;
  if (!last || !root.contains(last) || last === root) return;
  const text = squash(last);
  const href = last.getAttribute("href")?.trim() ?? "";
  if (text.length === 0 || text.length > LINK_LINE_CHARS || href === "" || ADDRESS.test(href) || URL_TEXT.test(text)) return;
  // The line: the link and the wrappers around it that hold nothing else.
  let line: Element = last;
  while (line.parentElement && line.parentElement !== root && squash(line.parentElement) === text) line = line.parentElement;
  if (line.closest("li") && root.contains(line.closest("li"))) return;
  if (line.parentElement && line.parentElement !== root && squash(line.parentElement) !== text) {
    // Text beside the link in its block (a sentence ending in a link): not a line of its own.
    const block = line.parentElement;
    const inline = !["div", "section", "article", "main", "aside", "footer", "header", "nav"].includes(tagOf(block));
    if (inline) return;
  }
  line.remove();
}
