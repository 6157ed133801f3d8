/**
 * Small DOM helpers for the content extractor. They walk nodes with firstChild/nextSibling and
 * never call textContent in loops: on linkedom that would rebuild strings for every ancestor.
 */

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

/** Elements laid out as blocks: each one starts a new text block for scoring. */
export const BLOCK_TAGS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "html",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
  "br",
  "center",
  "caption",
]);

/** Never content: removed before anything is scored. */
export const JUNK_TAGS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "link",
  "meta",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "button",
  "select",
  "option",
  "textarea",
  "input",
  "dialog",
  "map",
  "audio",
  "video",
  "source",
  "track",
  "head",
  "title",
]);

export const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * An element's textContent, each element's read once for the life of the function returned: a
 * wrapper's text is its children's, already read. For a walk that reads the text of each block it
 * visits (and removes only blocks it has passed, or at its end): textContent read afresh at every
 * level of a chain of wrappers cost the chain's depth times what lies under it (a chain over a run
 * of empty blocks).
 */
export function textReader(): (el: Element) => string {
  // Elements that hold elements only: a leaf's text is read from its own children, as cheaply again.
  const memo = new Map<Element, string>();
  const read = (el: Element): string => {
    let text = memo.get(el);
    if (text !== undefined) return text;
    text = "";
    let wraps = false;
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === ELEMENT_NODE) {
        text += read(n as Element);
        wraps = true;
      } else if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) text += (n as CharacterData).data;
    }
    if (wraps) memo.set(el, text);
    return text;
  };
  return read;
}
const CDATA_SECTION_NODE = 4;

/**
 * True when `el` has exactly one element child. linkedom's childElementCount builds the array of
 * all children; the walks up and down chains of single wrappers ask this at every level, so a chain
 * ending in a parent of 100,000 children cost 100,000 per level.
 */
export function hasOneChild(el: Element): boolean {
  const first = el.firstElementChild;
  return first !== null && first.nextElementSibling === null;
}

export function tagOf(el: Element): string {
  return el.localName ?? el.tagName.toLowerCase();
}

/**
 * What "of one make" means for sibling blocks (listing entries, forum posts, the children the
 * scorer groups): the tag and the first class name that holds no digit. A class with a number is
 * often the block's own id (WordPress classes every entry "post-30149 post type-post ..."), and
 * would make each entry of a listing a make of its own; when every class has one ("col-6"), the
 * first with its numbers blanked.
 */
export function makeOf(el: Element): string {
  const cls = el.getAttribute("class");
  if (!cls) return `${tagOf(el)} `;
  const classes = cls.trim().split(/\s+/);
  for (const c of classes) if (!/\d/.test(c)) return `${tagOf(el)} ${c}`;
  return `${tagOf(el)} ${(classes[0] ?? "").replace(/\d+/g, "#")}`;
}

/**
 * The condition of a utility class (Tailwind's variants: "lg:", "hover:", "[html.sidebar-filled_&]:",
 * "page-api-block:"): what comes before a class's last colon names when the style applies (a screen
 * size, a state, a theme or an ancestor's class), not the element.
 */
const VARIANT = /(^|\s)\S*:/g;

/**
 * The class and id of an element, lower-cased, as one string for pattern tests. Utility classes
 * are read without their conditions: a code block styled for a theme whose sidebar is filled
 * ("[html.theme-bold.sidebar-filled_&]:bg-tint-base") is no sidebar; a column sized as one
 * ("lg:max-w-[--sidebar-width]") still is.
 */
export function classAndId(el: Element): string {
  let c = el.hasAttribute("class") ? el.getAttribute("class") : null;
  const i = el.getAttribute("id");
  if (!c && !i) return "";
  if (c?.includes(":")) c = c.replace(VARIANT, "$1");
  return `${c ?? ""} ${i ?? ""}`.toLowerCase();
}

/** An id of three words or more ("respond-to-review-comments"): a slug, not a name a theme gives. */
const SLUG_ID = /^[\p{L}\p{N}]+([-_.][\p{L}\p{N}]+){2,}$/u;

/**
 * The names that say what an element is, for telling furniture: its class and id, less an id that
 * is the slug of its own heading. Documentation generators (Sphinx, MkDocs, Docusaurus) and
 * Markdown renderers give each section or heading the words of its title as id ("Respond to
 * review comments" is id="respond-to-review-comments"): those words are the author's, and name
 * the section no more than its title does. Three words at least: a lone "comments" is a theme's.
 * WCXB (1,497 pages): a kernel guide that lost two sections to "comments" and "replies" in their
 * ids, F1 0.942 to 0.968 (documentation 0.9399 to 0.9402), an article 0.982 to 1.000; nothing
 * fell by more than 0.0005; AEB F1 unchanged (0.9779).
 */
export function namesOf(el: Element): string {
  const id = el.getAttribute("id");
  if (!id || !SLUG_ID.test(id)) return classAndId(el);
  let heading: Element | null = HEADING_TAGS.has(tagOf(el)) ? el : null;
  // A section's heading is its first child but for empty ones (Sphinx puts an anchor <span> first).
  for (let c = el.firstElementChild, n = 0; !heading && c && n < 3; c = c.nextElementSibling, n++) {
    if (HEADING_TAGS.has(tagOf(c))) heading = c;
    else if (c.firstElementChild || (c.textContent ?? "").trim() !== "") break;
  }
  const slug = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  if (!heading || slug(heading.textContent ?? "") !== slug(id)) return classAndId(el);
  return (el.getAttribute("class") ?? "").toLowerCase();
}

/** Length of an element's text with whitespace runs counted once; also the part inside links. */
export function textStats(el: Element): { chars: number; linkChars: number } {
  let chars = 0;
  let linkChars = 0;
  const walk = (node: Node, inLink: boolean) => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === TEXT_NODE) {
        const n = visibleLength((c as Text).data);
        chars += n;
        if (inLink) linkChars += n;
      } else if (c.nodeType === ELEMENT_NODE) walk(c, inLink || tagOf(c as Element) === "a");
    }
  };
  walk(el, false);
  return { chars, linkChars };
}

/**
 * Kana, CJK ideographs and Hangul carry about a word each: counting them three times keeps the
 * length thresholds (a "paragraph" is 80 characters) meaningful for Chinese, Japanese and Korean.
 */
export const WIDE_FROM = 0x3040;
export const WIDE_TO = 0xd7af;
export const WIDE_WEIGHT = 3;

/** Characters of a text node once whitespace is collapsed (cheap: no string is built). */
export function visibleLength(s: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code === 32 || code === 10 || code === 9 || code === 13 || code === 160 || code === 12) {
      if (!space) n++;
      space = true;
    } else {
      n += code >= WIDE_FROM && code <= WIDE_TO ? WIDE_WEIGHT : 1;
      space = false;
    }
  }
  return space && n > 0 ? n - 1 : n;
}

/**
 * The site a link points to: the host of an absolute or protocol-relative link, lower-cased and
 * without "www."; "" for a relative link (this site); null for other schemes (mailto:, javascript:).
 */
export function linkHost(href: string): string | null {
  const m = /^(?:[a-z][\w+.-]*:)?\/\/([^/?#:]+)/i.exec(href.trim());
  if (m?.[1]) return m[1].toLowerCase().replace(/^www\./, "");
  return /^[a-z][\w+.-]*:/i.test(href.trim()) ? null : "";
}

/** True when `linked` (a linkHost) is `host` or a subdomain of it, or `host` one of its. */
export function sameSite(linked: string, host: string): boolean {
  return linked === host || linked.endsWith(`.${host}`) || host.endsWith(`.${linked}`);
}

/** The text of an element that holds no other element, whitespace collapsed and trimmed, or null when it holds one. */
export function leafText(el: Element): string | null {
  let text = "";
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === ELEMENT_NODE) return null;
    if (c.nodeType === TEXT_NODE) text += (c as Text).data;
  }
  return text.replace(/\s+/g, " ").trim();
}

/**
 * True when `el` is nothing but a chain of single wrappers around one h2-h6 heading that is not a
 * link (a shelf's linked title, "Trends Online", names a block of links).
 */
export function loneHeading(el: Element): boolean {
  let e: Element | null = el;
  for (let depth = 0; e && depth <= 4; depth++) {
    if (e !== el && /^h[2-6]$/.test(tagOf(e))) return e.querySelector("a") === null;
    if (!hasOneChild(e)) return false;
    for (let n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === TEXT_NODE && (n as Text).data.trim() !== "") return false;
    e = e.firstElementChild;
  }
  return false;
}

/** A card's overlay link names its page in aria-label: at least this many characters (a title). */
const OVERLAY_LABEL = 15;

/**
 * True when `el` holds overlay links to at least three pages of one site: empty anchors stretched
 * over a card, naming the linked page only in aria-label ("related blog posts" sliders). Such
 * cards' titles and excerpts are plain text, so the block reads as prose by its link density
 * though every card is a link to another page. Icon links (share buttons, "#", other sites' profiles)
 * are no such cards.
 */
export function overlayCards(el: Element): boolean {
  const pages = new Map<string, Set<string>>();
  for (const a of el.querySelectorAll("a[href]")) {
    if (a.firstElementChild || (a.textContent ?? "").trim() !== "") continue;
    if ((a.getAttribute("aria-label") ?? "").trim().length < OVERLAY_LABEL) continue;
    const href = (a.getAttribute("href") ?? "").trim();
    const host = href === "" || href.startsWith("#") ? null : linkHost(href);
    if (host === null) continue;
    const seen = pages.get(host) ?? new Set<string>();
    seen.add(href.replace(/[?#].*$/, ""));
    if (seen.size >= 3) return true;
    pages.set(host, seen);
  }
  return false;
}
