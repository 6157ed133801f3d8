/**
 * A heading that closes an article with nothing under it: the title of a block the cleanup took
 * away ("Related Posts", "Related Insights", "Keep Reading", "More you might like" over cards that
 * went as teasers or link lists) or of a widget that never filled in. A heading titles what
 * follows it; with nothing following, it says nothing of the story. Headings go from the end of
 * the root while the last text in it is one.
 */
import { HEADING_TAGS, tagOf } from "./dom.ts";

/** The last element of `el` that holds text, descending through containers to a heading or a text block. */
function lastTextBlock(el: Element): Element | null {
  for (let c = el.lastElementChild; c; c = c.previousElementSibling) {
    if ((c.textContent ?? "").trim() === "") continue;
    if (HEADING_TAGS.has(tagOf(c)) || !c.firstElementChild) return c;
    // A container whose own text (outside its children) is not the last words: look inside.
    const tail = c.lastChild;
    if (tail && tail.nodeType === 3 && (tail.textContent ?? "").trim() !== "") return c;
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
