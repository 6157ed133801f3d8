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
import { makeOf } from "./dom.ts";
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

/**
 * The posts' container is the root when it holds at least this share of the root's text (a widget
 * of two recent comments is no thread; on WCXB the narrowed threads hold 0.45 of it or more)...
 */
const NARROW_CHARS = 0.3;
/** ...and this share of its prose: what the thread says is in the posts, not around them. */
const NARROW_PROSE = 0.6;

/**
 * A thread's root. From <body>, the posts' container (above). A root the scoring chose can hold
 * more than the thread: the breadcrumb and a guest's sign-up notice above the posts, a list of the
 * board's other topics or a "Discussion overview" summary beside them, that score with the posts
 * because the posts are short. When the posts' container lies inside the root and holds most of its
 * prose, it is the root; not when the opening post stands apart from the replies' container
 * (openingPostApart): the container of the replies alone would leave it out.
 * WCXB (dev, 1,497 pages): forum even 0.8721 -> 0.8758, odd 0.7965 -> 0.8047 (0574 0.573 -> 0.867,
 * 0516 0.800 -> 0.892, 2797 0.893 -> 0.971, 0518 0.862 -> 0.931, 0577 0.230 -> 0.307, 0520 0.953
 * -> 0.984, 11 more up by less; 4316 0.058 -> 0.057, whose truth is the opening post alone); no
 * other type moved. Without the opening-post check, 0573 (a Lemmy post over its comment tree) fell
 * 0.959 -> 0.678 and 4087 0.975 -> 0.938.
 */
export function threadRoot(root: Element, body: Element, stats: StatsMap): Element {
  const posts = postsRoot(body, stats);
  if (root === body) return posts ?? root;
  if (!posts || posts === root || !root.contains(posts)) return root;
  const s = stats.get(posts);
  const r = stats.get(root);
  if (!s || !r || s.chars < NARROW_CHARS * r.chars || s.prose < NARROW_PROSE * r.prose) return root;
  return openingPostApart(root, posts, stats) ? root : posts;
}

/**
 * True when prose outside `posts` (inside `root`) is set in an element of the make of one inside
 * the posts: the opening post printed apart from the replies with the same body markup
 * (<div class="content markdown"> over the topic and in every reply).
 */
function openingPostApart(root: Element, posts: Element, stats: StatsMap): boolean {
  const makes = new Set<string>();
  for (const el of posts.querySelectorAll("[class]")) if ((stats.get(el)?.prose ?? 0) > 0) makes.add(makeOf(el));
  for (const el of root.querySelectorAll("[class]"))
    if ((stats.get(el)?.prose ?? 0) > 0 && !posts.contains(el) && !el.contains(posts) && makes.has(makeOf(el))) return true;
  return false;
}
