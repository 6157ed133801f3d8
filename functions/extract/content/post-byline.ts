/**
 * A post's byline: who wrote it and when. The chrome around each post of a thread goes (its
 * author card, its header: content/discussion.ts), but the author's name and the post's date are
 * part of what a reader sees of each post; they are kept, each on a line of its own, where the
 * chrome was. The rest of the card (rank, join date, post count, avatar) and of the header goes.
 */

/** A link to a member's profile page, or an element the template names as the author's name. */
export const PROFILE_HREF = /\/(members?|users?|u|profiles?|people)\/|(member|memberlist|profile)\.php\b|[?&](u|user|userid)=/i;
const NAME_CLASS = /(^|[\s_-])(username|user-?name|author-?name|poster-?name)([\s_-]|$)/i;
const NAME_CHARS = 40;
const AVATAR = /avatar/i;
const DATE_CHARS = 60;
/**
 * A post's date printed as text, where the template has no <time>: "Sun Dec 17, 2023 11:23 am"
 * (phpBB, after "by Bob »"), "May 12, 2024" (XenForo 1's DateTime span), "11-29-2024, 01:50 PM"
 * (vBulletin), "28/11/2025 at 7:22 pm", "Yesterday at 5:10 PM". The whole text must be the date.
 */
export const DATE_TEXT =
  /^(posted:? (on )?)?(((mon|tue|wed|thu|fri|sat|sun)[a-z]*,? )?((jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4}|\d{1,2}(st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,? \d{4})|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{4}-\d{2}-\d{2}|(today|yesterday)(?=,? (at )?\d))(,? (at )?\d{1,2}:\d{2}(:\d{2})? ?([ap]\.?m\.?)?)?$/i;

/**
 * A post's age rather than its date ("2 years ago", "Posted: 17 hours ago", "Over a year ago"):
 * what the page said when it was fetched, not when the post was written. It is no byline.
 */
export const AGE =
  /^(posted:? (on )?|·\s*)?((about|over|almost|nearly) )?(an?|\d+) (seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?) ago$/i;

/** The lines bylineOf made: a post's name and date, kept from chrome that went. */
const KEPT = new WeakSet<Element>();

/** True for a line bylineOf made from a post's chrome (content/repeated-bylines.ts reads them). */
export const isKeptByline = (el: Element) => KEPT.has(el);

/** The author's name and the post's date found in `part`, as new blocks to put in its place. */
export function bylineOf(part: Element): Element[] {
  if (part.querySelector("h1")) return threadHeaderByline(part);
  const doc = part.ownerDocument;
  const out: Element[] = [];
  const line = (text: string) => {
    const p = doc.createElement("p");
    p.textContent = text;
    KEPT.add(p);
    out.push(p);
  };
  let name: string | null = null;
  for (const el of part.querySelectorAll("a[href], [class]")) {
    const text = squash(el.textContent ?? "");
    if (text === "" || text.length > NAME_CHARS) continue;
    // An avatar links to the profile too, and one without a picture shows the name's initial ("K").
    const cls = el.getAttribute("class") ?? "";
    if (AVATAR.test(cls) || initialOnly(el, text)) continue;
    const href = el.localName === "a" ? (el.getAttribute("href") ?? "") : "";
    if (PROFILE_HREF.test(href) || NAME_CLASS.test(cls)) {
      // A name block can hold the member's group beside the link ("Bob Members"): the link is the name.
      const link = href ? null : profileLink(el);
      name = link ? squash(link.textContent ?? "") : text;
      break;
    }
  }
  name ??= cardTerm(part);
  if (name) line(name);
  const time = part.querySelector("time");
  const date = time ? timeText(time) : dateText(part);
  if (date && date !== "" && date.length <= DATE_CHARS && !AGE.test(date)) line(date);
  return out;
}

/**
 * An author card written as a definition list whose one term heads it: the name, with the
 * member's title and counts as its details (FluxBB: <dt><strong>Bob</strong></dt><dd>Member</dd>
 * <dd>Posts: 98</dd>). A list of labels and values ("Joined" / "2019", "Location" / "USA") has a
 * term for each value: its terms are labels, not a name.
 */
function cardTerm(part: Element): string | null {
  for (const dl of part.querySelectorAll("dl")) {
    const term = dl.firstElementChild;
    if (term?.localName !== "dt" || dl.querySelectorAll("dt").length !== 1 || dl.querySelectorAll("dd").length < 2) continue;
    const text = squash(term.textContent ?? "");
    if (text !== "" && text.length <= NAME_CHARS && !text.includes(":") && !initialOnly(term, text)) return text;
  }
  return null;
}

/** True when all the text of `el` is an avatar's inside it (a link around the initial "K"). */
function initialOnly(el: Element, text: string): boolean {
  if (!el.firstElementChild) return false;
  for (const pic of el.querySelectorAll('[class*="avatar" i]')) if (squash(pic.textContent ?? "") === text) return true;
  return false;
}

/** The first link to a profile under `el` that has text, or null. */
function profileLink(el: Element): Element | null {
  for (const a of el.querySelectorAll("a[href]"))
    if (PROFILE_HREF.test(a.getAttribute("href") ?? "") && squash(a.textContent ?? "") !== "") return a;
  return null;
}

/**
 * What a <time> shows: the date, where it prints it twice for the layout to pick one (a long
 * "June 14, 2024" and a short "1 yr" in spans of their own); else its words, spaced.
 */
function timeText(time: Element): string {
  for (let c = time.firstElementChild; c; c = c.nextElementSibling) {
    const t = squash(c.textContent ?? "");
    if (DATE_TEXT.test(t)) return t;
  }
  return squash(spaced(time));
}

/** The text of `el` with a space between the texts of its children. */
function spaced(el: Element): string {
  let out = "";
  for (let c = el.firstChild; c; c = c.nextSibling)
    out += ` ${c.nodeType === 3 ? (c as Text).data : c.nodeType === 1 ? spaced(c as Element) : ""}`;
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** A label before a date that is not the post's: "Joined:", "Registered", "Member since", "Last seen". */
const OTHER_DATE = /(:|\b(joined|registered|member since|last (seen|active|visit(ed)?)))$/i;

/**
 * A definition list's values are labelled by its terms, also where a term is an icon whose label
 * is a tooltip (XenForo's author card: <dt><span title="Joined"><i class="fa-user"></i></span></dt>
 * <dd>Apr 13, 2009</dd>): the list's text is then a bare date, the member's, not the post's.
 */
const DEFINITION = new Set(["dl", "dd"]);

/**
 * The first text in `part` that is a date and nothing else (an element's whole text, or one text
 * node), unless a label says it is another date (a member's join date in the author card, a
 * definition list's value).
 */
function dateText(part: Element): string | null {
  let before = "";
  for (let c = part.firstChild; c; c = c.nextSibling) {
    const t = squash(c.nodeType === 3 ? (c as Text).data : c.nodeType === 1 ? (c.textContent ?? "") : "");
    if (t === "") continue;
    const labelled = OTHER_DATE.test(before) || (c.nodeType === 1 && DEFINITION.has((c as Element).localName));
    before = t;
    if (labelled) continue;
    // A date after the name's separator: "by Bob » Sun Dec 17, 2023 11:23 am".
    const date = c.nodeType === 3 ? t.replace(/^[»·|,-]\s*/, "") : t;
    if (date.length <= DATE_CHARS && DATE_TEXT.test(date)) return date;
    if (c.nodeType === 1) {
      const inner = dateText(c as Element);
      if (inner) return inner;
    }
  }
  return null;
}

/** A post, or a part of one, around pruned furniture: its byline's words are kept. */
const IN_POST = 'article, [class*="post" i], [class*="message" i], [class*="comment" i], [class*="entry" i]';
const PRUNED_CHARS = 300;
/** A member's signature (and a Q&A site's user card, named so) is about the member, not the post. */
const SIGNATURE = /signature/i;

/**
 * The byline in furniture that the first pass prunes inside a thread's posts: templates name a
 * post's header "author" or "meta", put its author column in an <aside>, its name in a "popup"
 * menu. The name and date in it are kept where it was (on discussion pages); the rest goes.
 */
export function prunedByline(el: Element): Element[] {
  if (SIGNATURE.test(el.getAttribute("class") ?? "") || !el.parentElement?.closest(IN_POST)) return [];
  // A thread's header is longer than a byline: its author block is looked for (threadHeaderByline).
  if (!el.querySelector("h1") && (el.textContent ?? "").length > PRUNED_CHARS) return [];
  return bylineOf(el);
}

/** The block naming a post's author: marked up as its author or as a person, or named for the member. */
const AUTHOR_PART =
  '[itemprop="author"], [itemtype*="schema.org/Person" i], [class*="author" i], [class*="user" i], [class*="poster" i]';

/**
 * The opening post's header, holding the thread's title: beside its author it shows the thread's
 * counters and who posted last ("5 replies · last post by Bob · Jun 5"): that name and date are
 * not the post's. Only the author block in it is read; none, and the header keeps no byline.
 */
function threadHeaderByline(el: Element): Element[] {
  for (const part of el.querySelectorAll(AUTHOR_PART)) {
    if (part.querySelector("h1") || squash(part.textContent ?? "").length > PRUNED_CHARS) continue;
    const byline = bylineOf(part);
    if (byline.length > 0) return byline;
  }
  return [];
}
