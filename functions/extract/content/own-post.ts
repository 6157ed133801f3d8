/**
 * A blog post whose theme prints "You may also like" as a block of other posts, each an <article>
 * with an image, share buttons and a full excerpt: three excerpts outweigh a short post (a quote,
 * a message of a few lines), so the block scores as the core and the root grows from it over the
 * post. The page's own post is the <article> that holds the page's one <h1>, beside the block;
 * a listing's title sits outside its entries.
 */
import type { StatsMap } from "./score.ts";

/** Other posts a block holds as <article> elements at least, to be a block of posts. */
const POSTS_MIN = 2;

/**
 * The <article> holding the page's only <h1> when `core` is a block of other posts beside it
 * (neither contains the other), both inside `scope`, and the article has prose of its own;
 * null otherwise.
 */
export function ownPostBesidePosts(core: Element, scope: Element, stats: StatsMap): Element | null {
  const h1s = scope.ownerDocument.querySelectorAll("h1");
  const h1 = h1s.length === 1 ? h1s[0] : undefined;
  if (!h1) return null;
  const own = h1.closest("article");
  if (!own || !scope.contains(own) || own.contains(core) || core.contains(own)) return null;
  if ((stats.get(own)?.prose ?? 0) === 0) return null;
  let posts = 0;
  for (const a of core.querySelectorAll("article")) if (a !== core && a.querySelector("h1") === null) posts++;
  return posts >= POSTS_MIN ? own : null;
}
