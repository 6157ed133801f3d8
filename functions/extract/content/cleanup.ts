/**
 * Second pass, inside the chosen root: drops the furniture that sits within the content
 * container itself (link lists, "read more" blocks, captions and bylines of articles) without
 * touching prose.
 */
import { HEADING_TAGS, tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

const KEEP_TAGS = new Set(["a", "pre", "code", "blockquote", "table", "thead", "tbody", "tr", "td", "th", "img", "picture"]);
const CAPTION = /caption|credit/;
const DATELINE = /^(by\s|updated|published|posted|\w+ \d{1,2}, \d{4}|\d{1,2} \w+ \d{4}|\d{4}-\d{2}-\d{2})/i;
/** A year, a clock time or "ago": short blocks holding one are datelines. */
const DATE_TOKEN = /\b(19|20)\d{2}\b|\b\d{1,2}:\d{2}\b|\bago\b/i;

/** Leftover widget labels: an ad slot's caption, a script-only slideshow's notice. */
const LABEL =
  /^(advert(isement)?|anzeige|publicidade|publicité|iklan|sponsored( content)?|comments?|\d+ comments?|post (a )?comment.*|share|tags?:.*|about the author|caption|more:|watch live|this (slideshow|video|content) requires javascript\.?|tell us what you think\W*|share (this|on)\b.*|print( this)?( article)?)$/i;

/** Consent notices that escaped the class-based pruning. */
const COOKIE_NOTE = /\b(uses?|use of|accept( all)?) cookies\b|\bcookie (settings|policy|preferences|consent)\b/i;

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
      const caption =
        opts.article &&
        (tag === "figcaption" ||
          (CAPTION.test((c.getAttribute("class") ?? "").toLowerCase()) && !c.querySelector("img, picture")));
      const short = s !== undefined && s.chars > 0 && s.chars < 500 ? (c.textContent ?? "") : "";
      const label = (s?.chars ?? 0) < 40 && LABEL.test(short.trim());
      const cookieNote = s !== undefined && s.prose < 500 && COOKIE_NOTE.test(short);
      // In an article a figure keeps its image; its text (caption, credit) is not the story's.
      const figureText =
        opts.article &&
        tagOf(el) === "figure" &&
        s !== undefined &&
        s.chars > 0 &&
        s.prose === 0 &&
        !c.querySelector("img, picture");
      if (linkList || caption || label || cookieNote || figureText) c.remove();
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
  /^(tags?:?$|categor(y|ies):?$|archives?$|filed under|related|you (may|might) also|more (in|from|on|stories|news|articles)|read (more|next|also)|recommended|popular|trending|most (read|popular|viewed)|latest|see also|also on|don'?t miss|sponsored|top stories|further reading|keep reading|what to read next|você pode gostar|veja também|leia também|te puede interesar|lee también|à lire aussi|voir aussi|lesen sie auch|mehr zum thema|das könnte sie|potrebbe interessarti|leggi anche)/i;
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
  /newsletter|subscribe|ⓒ|first published|like this story|if you buy something|affiliate|about the author|^source:|sign up|follow (us|her|him|them)|may be reached|reach (us|him|her) at|©|copyright|all rights reserved|support .{0,30} readers|tips? (to|at)|have a tip/i;

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
      const tag = tagOf(c);
      const text = s.chars < 160 ? (c.textContent?.trim() ?? "") : "";
      // Before the first paragraph: headline, kicker, dateline, byline, "More:" and share labels.
      const headline = tag === "h1" || tag === "h2" || tag === "h3";
      const dateline = s.chars < 160 && (DATELINE.test(text) || DATE_TOKEN.test(text) || s.linkChars > 0.5 * s.chars);
      if (headline || dateline || (!HEADING_TAGS.has(tag) && s.chars < 60)) doomed.push(c);
      else return true;
    }
    return false;
  };
  visit(root);
  for (const d of doomed) d.remove();
}
