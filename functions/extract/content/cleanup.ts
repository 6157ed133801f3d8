/**
 * Second pass, inside the chosen root: drops the furniture that sits within the content
 * container itself (link lists, "read more" blocks, captions and bylines of articles) without
 * touching prose.
 */
import { HEADING_TAGS, tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

const KEEP_TAGS = new Set(["a", "pre", "code", "blockquote", "table", "thead", "tbody", "tr", "td", "th", "img", "picture"]);
const CAPTION = /(^|[\s_-])(caption|credit|credits|photo-?credit|image-?credit|wp-caption-text)([\s_-]|$)/;
const DATELINE = /^(by\s|updated|published|posted|\w+ \d{1,2}, \d{4}|\d{1,2} \w+ \d{4}|\d{4}-\d{2}-\d{2})/i;

export interface CleanupOptions {
  /** Article pages: captions, the headline and the byline block above the text go too. */
  article: boolean;
}

export function cleanupRoot(root: Element, stats: StatsMap, opts: CleanupOptions): void {
  const walk = (el: Element) => {
    for (let c = el.firstElementChild; c; ) {
      const next = c.nextElementSibling;
      const s = stats.get(c);
      const tag = tagOf(c);
      // A block of several links and little else (a single linked title is a card's name: kept).
      const linkList =
        s &&
        !KEEP_TAGS.has(tag) &&
        s.prose === 0 &&
        s.chars > 0 &&
        s.linkChars > 0.6 * s.chars &&
        s.score < 0 &&
        (opts.article || c.querySelectorAll("a").length >= 3);
      const caption = opts.article && (tag === "figcaption" || CAPTION.test((c.getAttribute("class") ?? "").toLowerCase()));
      if (linkList || caption) c.remove();
      else if (c.firstElementChild) walk(c);
      c = next;
    }
  };
  walk(root);
  if (opts.article) {
    dropRelatedBlocks(root, stats);
    trimArticleHead(root, stats);
    dropTrailingNotes(root, stats);
  }
}

const RELATED_HEADING =
  /^(related|you (may|might) also|more (in|from|on|stories|news|articles)|read (more|next|also)|recommended|popular|trending|most (read|popular|viewed)|latest|see also|also on|don'?t miss|sponsored|top stories|further reading|keep reading|what to read next)/i;
const HEADING_LIKE = new Set(["h2", "h3", "h4", "h5", "h6", "strong", "b", "span", "p", "div"]);

/** "Related articles" and the like: the heading and the link list that follows it. */
function dropRelatedBlocks(root: Element, stats: StatsMap): void {
  const doomed: Element[] = [];
  for (const h of root.querySelectorAll("h2, h3, h4, h5, h6, p, div, span, strong")) {
    if (!HEADING_LIKE.has(tagOf(h)) || h.firstElementChild?.tagName === "P") continue;
    // Cheap length check first: textContent of a big container would be built for nothing.
    const hs = stats.get(h);
    if (hs && hs.chars > 60) continue;
    const text = h.textContent?.trim() ?? "";
    if (text.length === 0 || text.length > 60 || !RELATED_HEADING.test(text)) continue;
    const parent = h.parentElement;
    const ps = parent ? stats.get(parent) : undefined;
    if (parent && parent !== root && ps && ps.prose === 0 && ps.chars < 1500) doomed.push(parent);
    else {
      doomed.push(h);
      for (let n = h.nextElementSibling; n && !HEADING_TAGS.has(tagOf(n)); n = n.nextElementSibling) {
        const s = stats.get(n);
        if (s && s.linkChars > 0.5 * s.chars) doomed.push(n);
        else break;
      }
    }
  }
  for (const d of doomed) d.remove();
}

const NOTE =
  /newsletter|subscribe|sign up|follow (us|her|him|them)|may be reached|reach (us|him|her) at|©|copyright|all rights reserved|support .{0,30} readers|tips? (to|at)|have a tip/i;

/** Short promotional notes after the last paragraph of an article ("Subscribe to…", "Have a tip?"). */
function dropTrailingNotes(root: Element, stats: StatsMap): void {
  let el: Element | null = root;
  while (el) {
    let last: Element | null = el.lastElementChild;
    while (last && (stats.get(last)?.chars ?? 0) === 0) last = last.previousElementSibling;
    if (!last) return;
    const s = stats.get(last);
    if (s && s.chars < 250 && NOTE.test(last.textContent ?? "")) last.remove();
    else if (s && s.prose > 0 && last.firstElementChild && s.ownPlain < 80) el = last;
    else return;
  }
}

/** Removes the headline and short dateline/byline blocks that precede the first paragraph of prose. */
function trimArticleHead(root: Element, stats: StatsMap): void {
  const doomed: Element[] = [];
  const visit = (el: Element): boolean => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      if (s.prose > 0) {
        // Descend into the first container holding prose; stop at the prose block itself.
        if (s.ownPlain >= 80 || !c.firstElementChild) return true;
        return visit(c) || true;
      }
      const text = s.chars < 120 ? (c.textContent?.trim() ?? "") : "";
      if (tagOf(c) === "h1" || (s.chars < 120 && (DATELINE.test(text) || s.linkChars > 0.5 * s.chars))) doomed.push(c);
      else if (!HEADING_TAGS.has(tagOf(c)) && s.chars < 60) doomed.push(c);
      else return true;
    }
    return false;
  };
  visit(root);
  for (const d of doomed) d.remove();
}
