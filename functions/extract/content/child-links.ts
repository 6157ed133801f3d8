/**
 * Lists of the page's own children: on an index page (a department's programmes, a section's
 * topics), a list of links to pages under the page's own path is what the page is for, however
 * link-heavy it reads; the cleanup keeps it (content/cleanup.ts).
 */

/** This share of a list's links must lead under the page's path. */
const CHILD_SHARE = 0.8;
/** And at least this many. */
const CHILDREN_MIN = 2;

/** The page's path as a prefix of its children's ("/a/b/"), or null for a site's front page. */
export function childPrefix(url: string): { origin: string; prefix: string } | null {
  try {
    const u = new URL(url);
    let path = u.pathname.replace(/\/index\.\w+$/, "/");
    if (!path.endsWith("/")) path += "/";
    if (path === "/") return null;
    return { origin: u.origin.replace("//www.", "//"), prefix: path };
  } catch {
    return null;
  }
}

/** True when most links in `el` lead to pages under `base`'s path (deeper than the page itself). */
export function linksToChildren(el: Element, base: { origin: string; prefix: string }, url: string): boolean {
  // A list of options (a filter's choices, role="listbox") is a control, not the page's list.
  if (el.getAttribute("role") === "listbox" || el.querySelector('[role="listbox"], [role="option"]')) return false;
  let n = 0;
  let children = 0;
  for (const a of el.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href") ?? "";
    if (href.startsWith("#")) continue;
    n++;
    // A path relative to the page may be relative to a <base> the page sets instead: not read.
    if (!href.startsWith("/") && !/^https?:/i.test(href)) continue;
    try {
      const u = new URL(href, url);
      if (
        u.origin.replace("//www.", "//") === base.origin &&
        u.pathname.startsWith(base.prefix) &&
        u.pathname.length > base.prefix.length
      )
        children++;
    } catch {
      // An href that does not parse leads nowhere.
    }
  }
  return children >= CHILDREN_MIN && children >= CHILD_SHARE * n;
}
