/**
 * First pass of boilerplate removal: drops elements that are never content (scripts, forms
 * controls, hidden nodes) and those whose tag, role, class or id mark them as page furniture
 * (navigation, headers and footers, sidebars, cookie banners, dialogs, share bars, related links, ads).
 * A marked element is kept when it holds most of the page's text: sites reuse such words on
 * wrappers ("has-sidebar", "page-header-wrap").
 */
import {
  ELEMENT_NODE,
  HEADING_TAGS,
  JUNK_TAGS,
  loneHeading,
  namesOf,
  overlayCards,
  TEXT_NODE,
  tagOf,
  textStats,
  visibleLength,
} from "./dom.ts";
import { commerceDisclosure, inSentence, mockup, modalPanel, overlay } from "./furniture-marks.ts";
import { collapsedAnswer, HIDDEN_STYLE, isHidden, MOBILE_ONLY, readerText, tabPane, unhide } from "./hidden.ts";
import { isOwnList, mainOf } from "./own-list.ts";
import { bareMenu, menuHeader, pageFooter } from "./page-chrome.ts";
import { builtOfTextWidgets, featureBoxNames, textWidget } from "./text-widget.ts";

const HEADINGS = "h1, h2, h3, h4, h5, h6";

/**
 * Furniture whatever its text: matched anywhere in class or id. Testimonials are not in it: on a
 * service or landing page the customers' quotes are part of what the page says (a shop's review
 * widgets are named apart, below).
 */
const STRONG =
  /sidebar|tool-?tip(__|-)(content|body|inner|panel|popup)|cookie|consent|gdpr|newsletter|breadcrumb|navbar|footer|social|sharing|sharedaddy|share-|-share(?![a-z])|sharebar|share_|related|recommend|recirc|outbrain|taboola|advert|popup|subscribe|sponsor|promo|disqus|jp-relatedposts|signup|paywall|modal|overlay|toolbar|masthead|tag-?cloud|site-header|site-footer|global-header|global-footer|mega-?menu|side-?menu|widget-area|usertitle|userextras|user-extras|userbanner|signature|member-?stats|sectionlinks|drawer|flyout|mobile-?nav|mini-?cart|(?<!(with|has|no)-)reviews|review-list|yotpo|okendo|judgeme|stamped-|trustpilot|offcanvas|off-canvas|facet|filters?-?(panel|bar|drawer|form|sidebar)/;
/**
 * Furniture even when it holds prose (tickers, consent texts, an author's bio box and legal fine
 * print read like paragraphs). An author's bio goes by many names: a BEM element of an author or
 * contributor card ("mntl-author-tooltip__bio", "author__bio", "contrib-full-bio"), the Simple
 * Author Box plugin ("saboxplugin-"), a theme's "post-author" block under the post.
 */
const ALWAYS =
  /ticker|breaking-?news|marquee|consent|jdgm-|judgeme|yotpo|okendo|stamped-|trustpilot|review-?list|reviews-?(widget|list|container|section|wrapper)|author[-_]?(bio|box|info|card|profile|details|about)|about[-_]?(the[-_]?)?author|bio[-_]?box|(author|contrib|writer|expert|byline|interviewee)[\w-]*?bio|saboxplugin|(^|[\s_-])post-authors?(\s|$)|disclaimer|fine-?print|(^|[\s_-])legal([\s_-]|$)/;
/** Consent managers' banners and preference centres. */
const CONSENT = /consent|gdpr|cookie-?(banner|bar|notice|popup|law|settings|preferences)|cookiebot/;
/** Furniture when it also reads like one (link-heavy or short): matched on whole words. */
const WEAK_WORDS = new Set([
  "nav",
  "menu",
  "ad",
  "ads",
  "share",
  "tags",
  "widget",
  "header",
  "banner",
  "meta",
  "byline",
  "author",
  "pager",
  "pagination",
  "rail",
  "sidenav",
  "print",
  "login",
  "search",
  "topbar",
  "top-bar",
  "utility",
  "dropdown",
  "follow",
  "rating",
  "breadcrumbs",
  "toc",
  "hero-nav",
]);
/** Words that mark the content itself: such an element is never pruned on its class. */
const POSITIVE =
  /article-?body|articlebody|post-?body|entry-?content|post-?content|main-?content|article-?content|story-?body|content-?body|page-?content|markdown-?body|(^|\s)prose(\s|$)|itemprop|post-text|article-text|body-text|rich-?text|embed|twitter-tweet|instagram-media/;
export const COMMENT = /(^|[\s_-])(comments?|comment-list|commentlist|disqus|respond|replies|reply-list|discussion)([\s_-]|$)/;

/** A search page's results list ("search-results"): its "search" names the page, not a search box. */
const RESULTS = /(^|\s)search-?results?(\s|$)/;
/** A search's result in a longer class name ("search_result_item", "search-result-card"). */
const SEARCH_RESULT = /search[-_]?results?/g;

/** Product cards: a link-heavy block holding them is a product grid, whatever its class says. */
const PRODUCT_ITEM =
  '[itemtype*="Product"], [class*="product-card"], [class*="product-grid"], [class*="product-item"], [data-product-id]';

const REMOVE_TAGS = new Set(["nav", "aside", "footer"]);
const FURNITURE_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "dialog",
  "alertdialog",
  "tooltip",
  "menu",
  "menubar",
]);

/** A hidden element holding this share of the page's text is the page, hidden until scripts run. */
const PAGE_SHARE = 0.5;

export interface PruneResult {
  /** Comment sections set aside: removed later unless the page is a discussion. */
  comments: Element[];
}

/**
 * A toggle that fills a heading ("<h3><button>What is an HRMS?</button></h3>", or a div with
 * role="heading"): an accordion's question or section title, which the heading shows. A button
 * beside the heading's own words ("<h1>Enum Result <button>Copy item path</button></h1>") is a
 * control next to the title, not the title: it goes with the other buttons.
 */
function isHeadingToggle(button: Element): boolean {
  const heading = button.closest('h1, h2, h3, h4, h5, h6, [role="heading"]');
  if (!heading) return false;
  const all = heading.textContent ?? "";
  const own = button.textContent ?? "";
  return !/\p{L}/u.test(all.replace(own, ""));
}

/** Removes never-content tags; collects hidden elements (decided later, once the page size is known). */
function removeJunk(root: Element, hidden: Element[], toggled: Set<Element>): void {
  for (let c = root.firstElementChild; c; ) {
    const next = c.nextElementSibling;
    const tag = tagOf(c);
    if (tag === "noscript") {
      // With scripts off a reader sees <noscript>: large ones hold the real page (Discourse and
      // other apps serve their crawler view there); small ones are "enable JavaScript" notes.
      if (textStats(c).chars >= 200) {
        removeJunk(c, hidden, toggled);
        unwrap(c);
      } else c.remove();
    } else if (tag === "button" && (c.querySelector(HEADINGS) || isHeadingToggle(c))) {
      // An accordion's toggle: the heading in it is the question or section title, and the
      // collapsed block after it (after its wrapper, when it is the wrapper's last child) the answer.
      const panel = next ?? (c.parentElement?.lastElementChild === c ? c.parentElement.nextElementSibling : null);
      if (panel) toggled.add(panel);
      removeJunk(c, hidden, toggled);
      unwrap(c);
    } else if (JUNK_TAGS.has(tag) || (tag === "a" && isSkipLink(c))) c.remove();
    else {
      if (tag !== "body" && tag !== "html" && isHidden(c)) hidden.push(c);
      if (c.firstElementChild) removeJunk(c, hidden, toggled);
    }
    c = next;
  }
}

/** A skip link's words: "Skip to main content", "Skip to product list", "Skip navigation links". */
const SKIP_LINK = /^(skip|jump) (to|over|past)\b|^skip (navigation|nav|links|menu)\b/i;
const SKIP_LINK_CHARS = 60;

/**
 * A skip link: a keyboard user's jump to a place on the same page (href="#main"), shown only when
 * it has the focus; as text it is a stray line at the top of the page.
 */
function isSkipLink(a: Element): boolean {
  if (!(a.getAttribute("href") ?? "").startsWith("#")) return false;
  const text = (a.textContent ?? "").trim();
  return text.length <= SKIP_LINK_CHARS && SKIP_LINK.test(text);
}

function unwrap(el: Element): void {
  const parent = el.parentNode;
  if (!parent) return;
  while (el.firstChild) parent.insertBefore(el.firstChild, el);
  el.remove();
}

/** A BEM element named "header", last or followed by its own parts ("listing__header__title"). */
const ELEMENT_HEADER = /[a-z0-9]__header(__|$)/;
/** Cheap pre-test: most class strings hold none of the weak words at all. */
const WEAK_ANY = new RegExp(`(^|[\\s_-])(${[...WEAK_WORDS].join("|")})([\\s_-]|$)`);

/**
 * On a list page (a category, an archive) a card's rating ("4.6 out of 5 stars, 133 reviews") is
 * one of its fields, like its price: "rating" names the card's data there, not a widget beside
 * the text (a story's "Rate this article" goes: content/rating-input.ts, content/feedback.ts).
 */
const CARD_RATING = /rating/g;

function isWeakMatch(ci: string, lists = false): boolean {
  if (!WEAK_ANY.test(ci)) return false;
  ci = featureBoxNames(lists ? ci.replace(CARD_RATING, "score") : ci);
  // "card__header" is the head of a card (a BEM element), not the page header; so are its parts
  // ("new-listing__header__title__text": a job listing's title).
  // "search_result_item" names one result of a search, not a search box.
  const classes = ci
    .replace(SEARCH_RESULT, "result")
    .split(/\s+/)
    .filter((c) => !ELEMENT_HEADER.test(c));
  for (const word of classes.join(" ").split(/[\s_]+/)) {
    if (WEAK_WORDS.has(word)) return true;
    // "nav-links", "main-nav"; not "filtering-and-pagination" (a product column on one site).
    const parts = word.split("-");
    if (parts.length === 2 && (WEAK_WORDS.has(parts[0] ?? "") || WEAK_WORDS.has(parts[1] ?? ""))) return true;
    if (parts.length > 2 && WEAK_WORDS.has(parts[0] ?? "")) return true;
  }
  return false;
}

/** A dialog the page opens on demand ("merge_cart_dialog", "dialog_container"): the word whole, not "dialogue". */
const DIALOG = /(^|[\s_-])dialog([\s_-]|$)/;
/** Why an element looks like furniture: "strong", "weak", "comment" or null. */
function furnitureKind(
  el: Element,
  tag: string,
  inArticle: boolean,
  widgetText: boolean,
  lists: boolean,
): "strong" | "weak" | "comment" | null {
  if (REMOVE_TAGS.has(tag)) return "strong";
  if (tag === "header") return inArticle ? null : "weak";
  const role = el.getAttribute("role");
  if (role && FURNITURE_ROLES.has(role)) return "strong";
  const ci = namesOf(el);
  if (!ci || POSITIVE.test(ci) || RESULTS.test(ci)) return null;
  if (COMMENT.test(ci)) return "comment";
  if (STRONG.test(ci) || ALWAYS.test(ci) || DIALOG.test(ci) || overlay(ci) || mockup(ci) || commerceDisclosure(el, ci))
    return "strong";
  // A heading called "content-header" is a heading, not the page header; so is a heading alone in
  // a wrapper with such a name (a page builder's "elementor-widget-heading" around an <h3>).
  return !HEADING_TAGS.has(tag) && isWeakMatch(ci, lists) && !loneHeading(el) && !(widgetText && textWidget(el, ci, isWeakMatch))
    ? "weak"
    : null;
}

/** Text and link-text length of every element under `root`, in one walk. */
function measureAll(root: Element): Map<Element, { chars: number; linkChars: number }> {
  const out = new Map<Element, { chars: number; linkChars: number }>();
  const visit = (el: Element, inLink: boolean): { chars: number; linkChars: number } => {
    let chars = 0;
    let linkChars = 0;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === TEXT_NODE) {
        const n = visibleLength((c as Text).data);
        chars += n;
        if (inLink) linkChars += n;
      } else if (c.nodeType === ELEMENT_NODE) {
        const s = visit(c as Element, inLink || tagOf(c as Element) === "a");
        chars += s.chars;
        linkChars += s.linkChars;
      }
    }
    const s = { chars, linkChars };
    out.set(el, s);
    return s;
  };
  visit(root, false);
  return out;
}

/** Removes `el`, taking its text off the counts of the ancestors it leaves. */
function removeMeasured(el: Element, measured: Map<Element, { chars: number; linkChars: number }>): void {
  const own = measured.get(el);
  for (let a = el.parentElement; a && own; a = a.parentElement) {
    const s = measured.get(a);
    if (!s) break;
    s.chars -= own.chars;
    s.linkChars -= own.linkChars;
  }
  el.remove();
}

/**
 * With `lists` (a category or listing page: content/page-kind.ts), a list named as recirculation
 * that holds most of <main> is kept as the page's own (content/own-list.ts), and a card's text for
 * screen readers beside the aria-hidden text shown in its place (a sale price: content/hidden.ts).
 * With `keep`, what it returns for a pruned element takes its place (a post's byline:
 * content/post-byline.ts).
 */
export function pruneDocument(body: Element, lists = false, keep?: (el: Element) => Element[]): PruneResult {
  // Collapsed panels that a control can reveal (tabs, accordions, "read more") are content.
  const revealable = new Set<string>();
  for (const el of body.querySelectorAll("[aria-controls]"))
    for (const id of (el.getAttribute("aria-controls") ?? "").split(/\s+/)) if (id) revealable.add(id);
  const hidden: Element[] = [];
  const toggled = new Set<Element>();
  removeJunk(body, hidden, toggled);
  // Every subtree is measured once, up front: the walk below only marks elements, and the hidden
  // elements removed here have their text taken off their ancestors' counts.
  const measured = measureAll(body);
  let total = measured.get(body)?.chars ?? 0;
  // Read before any goes: a reader's text is told by the aria-hidden sibling beside it.
  const readers = new Set(lists ? hidden.filter(readerText) : []);
  // Hidden elements go, except a hidden wrapper of most of the page (a script would reveal it).
  // Hidden microdata blocks (a copy of the article for crawlers) always go.
  for (const h of hidden) {
    const panel =
      h.getAttribute("role") === "tabpanel" ||
      toggled.has(h) ||
      revealable.has(h.getAttribute("id") ?? "") ||
      // Accordions often hide the wrapper of the controlled panel rather than the panel itself.
      revealable.has(h.firstElementChild?.getAttribute("id") ?? "") ||
      tabPane(h) ||
      collapsedAnswer(h) ||
      readers.has(h);
    // An inline-styled (or mobile-only) wrapper of much of the page may be the page itself; one
    // hidden by class or aria-hidden only when it holds most of it (pages hidden until a script
    // has run, a page behind an open dialog). Smaller ones are meant.
    const styled = HIDDEN_STYLE.test(h.getAttribute("style") ?? "") || MOBILE_ONLY.test(h.getAttribute("class") ?? "");
    const share = panel || h.hasAttribute("itemscope") ? 0 : (measured.get(h)?.chars ?? 0) / Math.max(1, total);
    if (panel || (styled && share >= 0.3) || share >= PAGE_SHARE) unhide(h);
    else removeMeasured(h, measured);
  }
  total = measured.get(body)?.chars ?? 0;
  const widgetText = builtOfTextWidgets(body, isWeakMatch);
  const comments: Element[] = [];
  const doomed: Element[] = [];
  let doomedChars = 0;
  // Inside a comment section (kept on discussion pages) furniture is looked for too: signatures,
  // share bars and user panels inside posts; nested comments count with the section.
  const walk = (el: Element, inArticle: boolean, inComment: boolean, main: Element | null, list: Element | null) => {
    for (let c = el.firstElementChild; c; ) {
      const next = c.nextElementSibling;
      const tag = tagOf(c);
      let kind =
        tag === "main" || tag === "article" || c.getAttribute("itemprop") === "articleBody"
          ? null
          : furnitureKind(c, tag, inArticle, widgetText, lists);
      if ((kind === "comment" && inComment) || (kind && inSentence(c, (e) => measured.get(e)?.chars ?? 0))) kind = null;
      let removed = false;
      let listEl = list;
      if (kind) {
        const { chars, linkChars } = measured.get(c) ?? textStats(c);
        // Wrappers holding most of the page, or much prose, are not furniture, whatever they are
        // called; a modal is (content/furniture-marks.ts).
        const byClass = !REMOVE_TAGS.has(tag) && !c.hasAttribute("role") && !ALWAYS.test(namesOf(c)) && !namedSidebar(c);
        const wrapper =
          ((chars > 0.5 * total && total > 500) ||
            // Not when the prose is cards under empty overlay links (dom.ts overlayCards).
            (byClass && chars >= 1000 && linkChars < 0.25 * chars && !(kind === "strong" && overlayCards(c)))) &&
          !bareMenu(c, tag, chars) &&
          !pageFooter(c, tag, inArticle) &&
          !menuHeader(c, tag, inArticle, chars) &&
          !consentPanel(c) &&
          !modalPanel(c, namesOf(c));
        // A layout wrapper named for its sidebar (Genesis themes' "content-sidebar-wrap", an
        // off-canvas menu's page wrapper) holds the page's <main>: it is the page, with the
        // sidebar inside it (pruned on its own below). A sidebar never holds the main element.
        const layout = byClass && c.querySelector("main, [role=main]") !== null;
        // A list named as recirculation that holds most of <main> is the page's own (content/own-list.ts).
        const ownList = lists && byClass && kind === "strong" && isOwnList(c, chars, main, list, measured);
        if (ownList && !list) listEl = c;
        if (kind === "comment") {
          // Comment sections can outweigh the article: only a heading or article body inside saves them.
          if (!c.querySelector("h1, [itemprop=articleBody]")) {
            comments.push(c);
            if (c.firstElementChild) walk(c, inArticle || tag === "article" || tag === "main", true, mainOf(c, tag, main), list);
            removed = true;
          }
        } else if (
          !wrapper &&
          !layout &&
          !ownList &&
          (kind === "strong" || chars < 200 || (linkChars > 0.4 * chars && !(chars >= 1000 && c.querySelector(PRODUCT_ITEM))))
        ) {
          doomed.push(c);
          doomedChars += chars;
          removed = true;
        }
      }
      if (!removed && c.firstElementChild)
        walk(c, inArticle || tag === "article" || tag === "main", inComment, mainOf(c, tag, main), listEl);
      c = next;
    }
  };
  walk(body, false, false, null, null);
  // Class names misled us if nearly nothing would be left: then keep everything but the junk.
  if (total - doomedChars < Math.min(100, 0.1 * total)) return { comments: [] };
  for (const d of doomed) d.replaceWith(...(keep?.(d) ?? []));
  return { comments };
}

/**
 * A consent manager's panel (class or id: consent, cookie banner, GDPR) is furniture however much
 * it spells out: a preference centre describes every purpose and vendor in prose and can outweigh
 * the page. Only one that holds the page's h1 or its main element is a wrapper of the page.
 */
function consentPanel(el: Element): boolean {
  return CONSENT.test(namesOf(el)) && el.querySelector("h1, main, [role=main]") === null;
}

/** A class or id that is the word "sidebar" itself, not a wrapper's "has-sidebar" or "sidebar-layout". */
const SIDEBAR_NAME = /(^|\s)sidebar(\s|$)/;

/**
 * An element named "sidebar" and nothing more (id="sidebar", class="sidebar") is the page's side
 * column whatever prose it holds: a review widget, an "about us" blurb or a newsletter pitch read
 * like paragraphs. Only one that holds the page's h1, main or article is the page itself.
 */
function namedSidebar(el: Element): boolean {
  if (el.getAttribute("id") !== "sidebar" && !SIDEBAR_NAME.test(el.getAttribute("class") ?? "")) return false;
  return el.querySelector("h1, main, article, [role=main]") === null;
}
