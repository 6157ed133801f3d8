/**
 * Quotes of posts shown on the same page of a thread: a reply repeats what it answers (the thread
 * itself is read in content/discussion.ts).
 */

/** A class that marks a quote of another post: "quote", "bbCodeBlock--quote", "ipsQuote", "bbcode_quote", "quotebox". */
const QUOTE_CLASS = /(^|\s)([\w-]*quote|quote(box|container|content))(\s|$)/i;
/** The attribution line a forum puts on a quoted post ("Alice said:", "Bob wrote:"). */
const ATTRIBUTION = /\b(said|wrote|writes|posted)\s*:\s*$/i;
/** The quoted words looked for elsewhere in the thread: enough to be one post's, not a common phrase. */
const PROBE_MIN = 24;
const PROBE_MAX = 80;

/** True when `el` is marked as a quote of another post: by class, or a blockquote citing its author. */
function isQuoteBlock(el: Element): boolean {
  const tag = el.localName;
  if (tag !== "blockquote" && tag !== "div" && tag !== "aside") return false;
  if (QUOTE_CLASS.test(el.getAttribute("class") ?? "")) return true;
  if (tag !== "blockquote") return false;
  if (el.hasAttribute("data-author") || el.querySelector("cite")) return true;
  const first = el.firstElementChild;
  return first !== null && (first.textContent?.length ?? 0) < 120 && ATTRIBUTION.test(first.textContent?.trim() ?? "");
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** The longest text node of `el`, whitespace squashed and cut to PROBE_MAX, or null when short. */
function probeOf(el: Element): string | null {
  let best = "";
  const walk = (node: Node) => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        const t = squash((c as Text).data);
        if (t.length > best.length) best = t;
      } else if (c.nodeType === 1) walk(c);
    }
  };
  walk(el);
  return best.length >= PROBE_MIN ? best.slice(0, PROBE_MAX) : null;
}

/**
 * Quotes of posts shown on the same page: a reply repeats what it answers, often a whole post, so
 * the thread would read such posts twice. A quote whose words appear elsewhere in the thread goes;
 * the reply stays, and so does a quote of anything the page does not show (an earlier page of the
 * thread, an announcement, an e-mail).
 */
export function dropQuotedPosts(root: Element): void {
  const quotes = [...root.querySelectorAll("blockquote, div[class*=uote], aside[class*=uote]")].filter(isQuoteBlock);
  if (quotes.length === 0) return;
  const text = squash(root.textContent ?? "");
  for (const q of quotes) {
    if (q === root || !root.contains(q)) continue;
    const probe = probeOf(q);
    if (probe === null) continue;
    const at = text.indexOf(probe);
    if (at >= 0 && text.indexOf(probe, at + 1) >= 0) q.remove();
  }
}
