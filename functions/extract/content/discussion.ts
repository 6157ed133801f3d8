/**
 * Discussion threads whose best-scoring subtree is the whole page: many short posts score no
 * higher than the page chrome around them, so the subtree search ends at <body>. The posts
 * themselves say where the thread is: elements of one class named as posts (post, message,
 * comment, reply, answer) holding text, repeated. Their nearest common container, widened to take
 * in other such groups of comparable size (the opening post is often apart from the replies), is
 * the content.
 */
import type { StatsMap } from "./score.ts";

const POST_WORD =
  /(^|[\s_-])(post|posts|message|messages|comment|comments|reply|replies|answer|answers|cpost|topic-?post|thread-?item)([\s_-]|$)/i;
/** Another group of posts joins when its text is at least this share of the largest group's. */
const JOIN_SHARE = 0.2;
const POST_MIN_CHARS = 40;

function commonAncestor(a: Element, b: Element): Element | null {
  let x: Element | null = a;
  while (x && !x.contains(b)) x = x.parentElement;
  return x;
}

export function postsRoot(body: Element, stats: StatsMap): Element | null {
  const groups = new Map<string, { members: Element[]; chars: number }>();
  for (const [el, s] of stats) {
    const plain = s.chars - s.linkChars;
    if (plain < POST_MIN_CHARS || el === body) continue;
    const cls = el.getAttribute("class");
    if (!cls || !POST_WORD.test(cls)) continue;
    const key = `${el.tagName} ${cls.trim().split(/\s+/, 1)[0]}`;
    const g = groups.get(key) ?? { members: [], chars: 0 };
    g.members.push(el);
    g.chars += plain;
    groups.set(key, g);
  }
  const lcaOf = (members: Element[]) =>
    members.reduce<Element | null>((acc, m) => (acc ? commonAncestor(acc, m) : null), members[0] ?? null);
  let best: { root: Element; chars: number } | null = null;
  const roots: { root: Element; chars: number }[] = [];
  for (const g of groups.values()) {
    if (g.members.length < 2) continue;
    const root = lcaOf(g.members);
    if (!root || root === body) continue;
    // Nested groups (a post's body inside the post) count once, by the outer group.
    roots.push({ root, chars: g.chars });
    if (!best || g.chars > best.chars) best = { root, chars: g.chars };
  }
  if (!best) return null;
  let root = best.root;
  for (const r of roots) {
    if (r.chars < JOIN_SHARE * best.chars || root.contains(r.root)) continue;
    const lca = commonAncestor(root, r.root);
    if (lca && lca !== body) root = lca;
  }
  return root;
}

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
