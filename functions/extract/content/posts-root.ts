/**
 * Discussion threads whose best-scoring subtree is the whole page: many short posts score no
 * higher than the page chrome around them, so the subtree search ends at <body>. The posts
 * themselves say where the thread is: elements of one class named as posts (post, message,
 * comment, reply, answer) holding text, repeated, or, where the class says nothing (vBulletin 3's
 * <table id="post2017066" class="tborder">), elements whose ids name them as numbered posts
 * ("post2017066", "post_123", "msg-88"). Their nearest common container, widened to take in other
 * such groups of comparable size (the opening post is often apart from the replies), is the content.
 * WCXB (dev, 1,497 pages), the ids: one forum page moved (a vBulletin 3 thread read from <body>,
 * welcome notice, posting rules and forum jump included: odd 0.695 -> 0.933; forum odd 0.7925 ->
 * 0.7965), no other page.
 */
import type { StatsMap } from "./score.ts";

const POST_WORD =
  /(^|[\s_-])(post|posts|message|messages|comment|comments|reply|replies|answer|answers|cpost|topic-?post|thread-?item)([\s_-]|$)/i;
/** Another group of posts joins when its text is at least this share of the largest group's. */
const JOIN_SHARE = 0.2;
const POST_MIN_CHARS = 40;

/** A post's own id: a post's word and its number. */
const POST_ID = /^(post|message|msg|comment|reply|answer)[-_]?\d+$/i;

/** The make of a post: its tag and first class word when the class names posts, else its id's word. */
function postKey(el: Element): string | null {
  const cls = el.getAttribute("class");
  if (cls && POST_WORD.test(cls)) return `${el.tagName} ${cls.trim().split(/\s+/, 1)[0]}`;
  const id = el.getAttribute("id");
  const word = id ? POST_ID.exec(id)?.[1] : undefined;
  return word ? `${el.tagName} #${word.toLowerCase()}` : null;
}

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
    const key = postKey(el);
    if (!key) continue;
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
