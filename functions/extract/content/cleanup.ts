/**
 * Second pass, inside the chosen root: drops the furniture that sits within the content
 * container itself (link lists, "read more" blocks, captions and bylines of articles) without
 * touching prose.
 */
import { childPrefix, linksToChildren } from "./child-links.ts";
import { HEADING_TAGS, linkHost, sameSite, tagOf, textReader } from "./dom.ts";
import { introduced } from "./lead-in.ts";
import { outboundLines } from "./outbound-links.ts";
import type { NodeStats, StatsMap } from "./score.ts";
import { itemOfTextList } from "./text-lists.ts";

/** What a figure can show in place of an image: its text is the figure, not its caption. */
const FIGURE_BODY = new Set(["table", "blockquote", "pre", "code"]);
const KEEP_TAGS = new Set(["a", "pre", "code", "blockquote", "table", "thead", "tbody", "tr", "td", "th", "img", "picture"]);
const CAPTION = /caption|credit/;
const DATELINE = /^(by\s|updated|published|posted|\w+ \d{1,2}, \d{4}|\d{1,2} \w+ \d{4}|\d{4}-\d{2}-\d{2})/i;
/** A year, a clock time or "ago": short blocks holding one are datelines. */
const DATE_TOKEN = /\b(19|20)\d{2}\b|\b\d{1,2}:\d{2}\b|\bago\b/i;

/**
 * Leftover widget labels: an ad slot's caption, a script-only slideshow's notice, a gallery's counter ("Image 1 of 5"),
 * a table of contents' title ("Table of Contents", "In this article", "Jump to:") left when its links went,
 * a disclosure's toggle label ("Expand all", "Expand description", "Collapse").
 */
const LABEL =
  /^(advert(isement)?|anzeige|publicidade|publicité|iklan|sponsored( content)?|comments?|\d+ comments?|post (a )?comment.*|share|tags?:.*|about the author|caption|more:|watch live|this (slideshow|video|content) requires javascript\.?|tell us what you think\W*|share (this|on)\b.*|print( this)?( article)?|loading(\.{3}|…)?|(load|show|view|see|read|learn|know|find out|discover) more|click to expand(\.{3}|…)?|(expand|collapse)( all| description| section| details)?|(view|see|shop) all|shop now|read (the )?(full )?(article|story)|continue reading|more info|(view|see) details|apply now|improve this (answer|question|post)|add a comment|\d+ likes?|more options|quick (shop|view|add)|add to (cart|bag|basket)|(choose|select) options|skip to (the )?(main )?content|skip navigation|(table of )?contents:?|in this (article|post|guide):?|on this page:?|jump to( section)?:?|(article|page) contents|quick links|\+\s?\d+|\(\d+\)|((image|photo|slide|picture) )?\d+ (of|\/) \d+)$/i;

const MONTH =
  "(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?)\\.?";
const PREFIX = "((published|updated|posted|last updated|modified)( on| at)?:? *)";
const READ = "\\d+ min(ute)?s? read";
const DAY = "((mon|tues?|wed(nes)?|thu(rs)?|fri|sat(ur)?|sun)(day)?,? )?";
const TIME = "([,|•·–-]? *(at )?\\d{1,2}[:.]\\d{2}(:\\d{2})?( ?[ap]\\.?m\\.?)?( [a-z]{2,4})?,?)";
const DATE = `(${DAY}(${MONTH} \\d{1,2}(st|nd|rd|th)?,? \\d{4}|\\d{1,2}(st|nd|rd|th)? ${MONTH},? \\d{4}|\\d{4}-\\d{2}-\\d{2}|\\d{1,2}/\\d{1,2}/\\d{2,4}))`;
/**
 * A block that is nothing but a date (and its time), an update time or a reading time ("November
 * 19, 2019, 9:02 AM", "Updated at 1:23 p.m.", "5 min read"): an article's dateline repeated in the
 * body or left between its paragraphs, never its prose. A bare time stays: it heads a live blog's
 * entries ("7:30 p.m."), and a table's "-12.99" reads like one.
 */
export const DATE_ONLY = new RegExp(`^(${PREFIX}?${DATE} *${TIME}?( *[|•·–-]? *${READ})?|${PREFIX}${TIME}|${READ})$`, "i");

/** Text that is nothing but unrendered template expressions (Angular, Vue, Handlebars). */
const TEMPLATE = /^\s*(\{\{[^{}]*\}\}\s*)+$/;
const QUICK_BUY = /(^|[\s_-])quick-?(shop|add|view|buy)/;
const CTA_CLASS = /(^|[\s_-])(btn|button|cta)([\s_-]|$)/;
const CTA_CHARS = 40;
const MENU_ITEM = /(^|\s)menu-item(\s|$)/;

/**
 * A call to action: a link styled as a button ("Get started", "See plans", "Book now"), by its
 * class or role, with a short label. (<button> elements are gone before scoring.)
 */
function isCallToAction(el: Element, tag: string): boolean {
  if (tag !== "a") return false;
  if (el.getAttribute("role") !== "button" && !CTA_CLASS.test((el.getAttribute("class") ?? "").toLowerCase())) return false;
  const text = el.textContent?.trim() ?? "";
  return text.length > 0 && text.length <= CTA_CHARS;
}

/**
 * The verbs a call to action opens with ("Read the documentation", "Explore the guide", "Watch video"),
 * and the way-back links of a page's chrome ("Back to blog", "Return to General", "Go to GitHub").
 */
const ACTION =
  /^(learn|read|explore|discover|watch|get|start|try|view|see|download|register|sign up|book|request|schedule|contact|talk|apply|join|find|compare|browse|check|visit|subscribe|claim|build|create|open|(back|return|go) to)\b/i;
const ACTION_WORDS = 5;

/**
 * A block that is nothing but one link whose label is a short imperative: a call to action left
 * without a button's class, or the chrome's way back ("Back to blog"). Headings are kept (a card's
 * linked title).
 */
function isActionLink(el: Element, tag: string, s: NodeStats | undefined, text: string): boolean {
  if (!s || s.chars === 0 || s.chars > CTA_CHARS || s.linkChars < s.chars || HEADING_TAGS.has(tag)) return false;
  const t = text.trim().replace(/\s+/g, " ");
  return t.split(" ").length <= ACTION_WORDS && ACTION.test(t) && el.querySelectorAll("a").length === 1;
}

const FORM_CHARS = 1000;
/** A form's status messages, shown once it is sent ("Thank you! Your submission has been received!"). */
const FORM_STATUS = /(^|\s)(w-form-(done|fail)|form-(success|error|done|fail)|wpcf7-response-output)(\s|$)/;

/**
 * A notice for readers without scripts ("Please download a browser that supports JavaScript, or
 * enable it", "Your browser does not seem to support JavaScript"): a <noscript> the page kept.
 */
const NO_SCRIPT =
  /^(please )?((download|use|switch to) a (modern )?browser that supports javascript|(enable|turn on) javascript\b|your browser (does not|doesn't) (seem to )?support javascript|javascript (is )?(required|disabled))/i;

/**
 * A notice for readers on an old browser, shown by a script only to them ("Your version of Internet
 * Explorer is no longer supported. Please upgrade your browser.", "You are using an outdated browser").
 * A notice is a line, not prose: a paragraph that opens so and goes on to explain is about browsers.
 */
const OLD_BROWSER =
  /^(your (version of )?(internet explorer|browser) is (no|not) longer supported|you are using an? (outdated|unsupported|old) browser|your browser is (out of date|outdated|not supported|unsupported))\b/i;

/**
 * The site's copyright notice ("© 2025 Example, Inc.", "Copyright © 2026 Example", "... All rights
 * reserved."), left in the root when the theme prints it inside the page's container; a title that
 * speaks of copyright ("Copyright Office Weighs In on AI") has neither the sign nor a year.
 */
const COPYRIGHT = /^(©|\(c\)\s*\d{4}|copyright\s*(©|\(c\)|\d{4}))|\ball rights reserved\.?$/i;
const COPYRIGHT_CHARS = 200;

/** Consent notices that escaped the class-based pruning. */
const COOKIE_NOTE = /\b(uses?|use of|accept( all)?) cookies\b|\bcookie (settings|policy|preferences|consent)\b/i;

export interface CleanupOptions {
  /** Article pages: captions, the headline and the byline block above the text go too. */
  article: boolean;
  /** Item grids are kept whole (cards with several links are not link lists): not on article pages. */
  grids: boolean;
  /** Shop grids: cards are grouped by their first class only. */
  shop: boolean;
  /** Forms without prose go (not on threads and product pages, whose posts and options sit in forms). */
  forms?: boolean;
  /** A list article (an index of links under a short intro): its link lists are the content and stay. */
  lists?: boolean;
  /** The page's host (without "www."): a heading linking to another site titles a section about it. */
  host?: string;
  /** The page's URL: a list of links to pages under its path is the page's own (content/child-links.ts). */
  url?: string;
}

export function cleanupRoot(root: Element, stats: StatsMap, options: CleanupOptions): void {
  // A shop grid chosen as the root is no article, whatever the page calls itself.
  const opts = options.article && options.shop && gridItems(root, stats, true) ? { ...options, article: false } : options;
  const base = opts.url && !opts.article ? childPrefix(opts.url) : null;
  // A paragraph or list item that is one link to another site is what the page points to; so are
  // the blocks inside it (`inLine`: an item's heading around the link, "<li><h2><a>Fluke 117</a></h2></li>",
  // was taken for a block of links: WCXB 0068 0.885 -> 0.989, no page down). So is a list a sentence
  // introduces, and its entries (content/lead-in.ts).
  const outbound = outboundLines(root, opts.host);
  // Inside a grid item (a card) link blocks are the card's name and details: kept. Texts read once (dom.ts).
  const textOf = textReader();
  const walk = (el: Element, inItem: boolean, inLine = false) => {
    const items = inItem || !(opts.shop || (opts.grids && !opts.article)) ? null : gridItems(el, stats, opts.shop);
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
        !inItem &&
        !opts.lists &&
        !items?.has(c) &&
        !linkedSectionTitle(c, tag, stats, opts.host) &&
        !inLine &&
        !outbound.has(c) &&
        !itemOfTextList(c, stats) &&
        !introduced(c, stats, RELATED_HEADING) &&
        (opts.article || c.querySelectorAll("a").length >= 3) &&
        !(base && opts.url && linksToChildren(c, base, opts.url));
      const caption =
        opts.article &&
        (tag === "figcaption" ||
          (CAPTION.test((c.getAttribute("class") ?? "").toLowerCase()) && !c.querySelector("img, picture")));
      const short = s !== undefined && s.chars > 0 && s.chars < 500 ? textOf(c) : "";
      // A leftover widget label, or a template expression a script never filled in ("{{ errors[1].message }}").
      const label =
        ((s?.chars ?? 0) < 40 && LABEL.test(short.trim())) ||
        TEMPLATE.test(short) ||
        (opts.article && (s?.chars ?? 0) < 80 && short.trim() !== "" && DATE_ONLY.test(short.trim().replace(/\s+/g, " ")));
      const cookieNote =
        s !== undefined &&
        s.prose < 500 &&
        (COOKIE_NOTE.test(short) ||
          NO_SCRIPT.test(short.trim()) ||
          (s.prose === 0 && OLD_BROWSER.test(short.trim())) ||
          (s.chars < COPYRIGHT_CHARS && COPYRIGHT.test(short.trim())));
      // In an article a figure keeps its image; its text (caption, credit) is not the story's. A
      // table, quote or code block a figure wraps (WordPress's "wp-block-table") is the figure itself.
      const figureText =
        opts.article &&
        tagOf(el) === "figure" &&
        !FIGURE_BODY.has(tag) &&
        s !== undefined &&
        s.chars > 0 &&
        s.prose === 0 &&
        !c.querySelector("img, picture");
      // A card's quick-buy widget (option pickers, "add to cart") is not the card's description.
      const quickBuy = inItem && opts.shop && QUICK_BUY.test((c.getAttribute("class") ?? "").toLowerCase());
      // A button-styled link ("Get started", "Book now") asks the reader to act; it says nothing.
      const cta = isCallToAction(c, tag) || isActionLink(c, tag, s, short);
      // A list built as a site menu (WordPress classes every entry of a menu "menu-item") is the
      // site's navigation printed inside the page, not the page's own list.
      const menu =
        (tag === "ul" || tag === "ol") &&
        s !== undefined &&
        s.prose === 0 &&
        MENU_ITEM.test(c.firstElementChild?.getAttribute("class") ?? "");
      // A form's labels and prompts ("Fill in the details", "Loading countries..."): its fields are gone.
      const form =
        opts.forms &&
        (tag === "form" || FORM_STATUS.test(c.getAttribute("class") ?? "")) &&
        s !== undefined &&
        s.prose === 0 &&
        s.chars < FORM_CHARS;
      if (linkList || caption || label || cookieNote || figureText || quickBuy || cta || menu || form) c.remove();
      else if (c.firstElementChild)
        walk(c, inItem || items?.has(c) === true, inLine || outbound.has(c) || introduced(c, stats, RELATED_HEADING));
      c = next;
    }
  };
  walk(root, false);
  if (opts.article) {
    dropRelatedBlocks(root, stats);
    trimArticleHead(root, stats);
    dropTrailingNotes(root, stats);
  }
}

/** Prose a section's first block holds at least for a linked heading above it to be its title. */
const SECTION_PROSE = 80;

/**
 * A section heading that is a link: a permalink to itself ("<h2 id="setup"><a href="#setup">Setup</a></h2>",
 * as Markdown generators print every heading), or a title that links to what the section is about
 * ("<h3><a>1. Amazon Polly</a></h3>" in a list of tools, a course's name over its review): one
 * link, right after a block of prose (the item before it), or to another site over a block of
 * prose. A card's linked title to another page of the site (nothing before it in its card) and
 * one over no prose (a partner's banner) stay link blocks.
 */
function linkedSectionTitle(el: Element, tag: string, stats: StatsMap, host: string | undefined): boolean {
  if (!HEADING_TAGS.has(tag)) return false;
  const links = el.querySelectorAll("a");
  if (links.length !== 1) return false;
  const href = links[0]?.getAttribute("href")?.trim() ?? "";
  if (href.startsWith("#") && href.length > 1) return true;
  // Between the story's paragraphs (prose just before it): a list article's next item.
  for (let p = el.previousElementSibling; p; p = p.previousElementSibling) {
    const s = stats.get(p);
    if (!s || s.chars === 0) continue;
    if (s.prose > 0) return true;
    break;
  }
  const linked = linkHost(href);
  if (!host || !linked || sameSite(linked, host)) return false;
  for (let n = el.nextElementSibling; n; n = n.nextElementSibling) {
    const s = stats.get(n);
    if (!s || s.chars === 0) continue;
    return s.prose >= SECTION_PROSE;
  }
  return false;
}

/** Minimum run of same-shaped siblings that makes an item grid, and the least text per item. */
const GRID_MIN = 4;
const GRID_ITEM_CHARS = 20;

/**
 * The children of `el` that are items of a grid (product cards, result entries): at least
 * GRID_MIN siblings of one tag and class with some text each. A card holds several links (image,
 * title, quick view) and is still content, not a link list.
 */
function gridItems(el: Element, stats: StatsMap, loose: boolean): Set<Element> | null {
  if (el.childElementCount < GRID_MIN) return null;
  const groups = new Map<string, Element[]>();
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    // On shop pages cards of one grid share their first class; later ones vary (ids, states).
    const cls = c.getAttribute("class") ?? "";
    const key = `${c.tagName} ${loose ? cls.trim().split(/\s+/, 1)[0] : cls}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  let out: Set<Element> | null = null;
  for (const g of groups.values()) {
    if (g.length < GRID_MIN) continue;
    let chars = 0;
    for (const c of g) chars += stats.get(c)?.chars ?? 0;
    if (chars / g.length < GRID_ITEM_CHARS) continue;
    out ??= new Set();
    for (const c of g) out.add(c);
  }
  return out;
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

/**
 * Also the credits and contact lines a news story ends with: who reported and edited it ("(Reporting
 * by …; Editing by …)", "… contributed to this report"), where to follow or write to the writer.
 */
const NOTE =
  /newsletter|subscribe|ⓒ|first published|like this story|if you buy something|affiliate|about the author|^source:|sign up|follow (us|her|him|them)|may be reached|reach (us|him|her) at|©|copyright|all rights reserved|support .{0,30} readers|tips? (to|at)|have a tip|^\W*(with |additional )?reporting by\b|^\W*(writing|editing|edited|compiled) by\b|\bcontributed (to )?(this )?(report|reporting|story)\b|^follow\b.{0,80}\b(twitter|facebook|instagram|linkedin|youtube)\b|^(write|email|e-mail) (to )?.{0,60}\bat\b.{0,40}@/i;

/** Short promotional notes after the last paragraph of an article ("Subscribe to…", "Have a tip?"). */
function dropTrailingNotes(root: Element, stats: StatsMap): void {
  let el: Element | null = root;
  while (el) {
    let last: Element | null = el.lastElementChild;
    // Stats are the first reading's: a block whose text the cleanup above removed is empty now.
    while (last && ((stats.get(last)?.chars ?? 0) === 0 || (last.textContent ?? "").trim() === ""))
      last = last.previousElementSibling;
    if (!last) return;
    const s = stats.get(last);
    if (s && s.chars < 250 && NOTE.test(last.textContent ?? "")) last.remove();
    else if (s && dropNoteAbove(last, stats)) continue;
    else if (s && s.prose > 0 && last.firstElementChild && s.ownPlain < 80) el = last;
    else return;
  }
}

/** Short lines without prose that may follow a closing note ("Listen live at 12:45 weekdays"). */
const AFTER_NOTE_CHARS = 120;
const AFTER_NOTE_MAX = 2;

/**
 * A closing note ("Follow X on Twitter and YouTube.") followed by one or two short lines without
 * prose (a show's air times, "Image credit: …"): the note and the lines after it go. Returns
 * whether they went.
 */
function dropNoteAbove(last: Element, stats: StatsMap): boolean {
  const after: Element[] = [];
  for (let el: Element | null = last; el; el = el.previousElementSibling) {
    const s = stats.get(el);
    if (!s || s.chars === 0) continue;
    if (after.length > 0 && s.chars < 250 && NOTE.test(el.textContent ?? "")) {
      for (const a of after) a.remove();
      el.remove();
      return true;
    }
    if (after.length >= AFTER_NOTE_MAX || s.prose > 0 || s.chars > AFTER_NOTE_CHARS) return false;
    after.push(el);
  }
  return false;
}

/** Removes the headline and short dateline/byline blocks that precede the first paragraph of prose. */
function trimArticleHead(root: Element, stats: StatsMap): void {
  const doomed: Element[] = [];
  const visit = (el: Element): boolean => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s) {
        // An inline element ahead of the text (a section kicker link, "NEWS"): a short label.
        const t = c.textContent?.trim() ?? "";
        if (t.length > 0 && t.length < 60) doomed.push(c);
        continue;
      }
      if (s.chars === 0) continue;
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
      // A prose-free block holding the headline is the article's header (headline, a standfirst
      // set as a heading, dates), too long in all for a dateline: its parts are judged one by one.
      else if (c.firstElementChild && c.querySelector("h1")) {
        if (visit(c)) return true;
      } else return true;
    }
    return false;
  };
  visit(root);
  for (const d of doomed) d.remove();
}
