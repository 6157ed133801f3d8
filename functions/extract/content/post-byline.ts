/**
 * A post's byline: who wrote it and when. The chrome around each post of a thread goes (its
 * author card, its header: content/discussion.ts), but the author's name and the post's date are
 * part of what a reader sees of each post; they are kept, each on a line of its own, where the
 * chrome was. The rest of the card (rank, join date, post count, avatar) and of the header goes.
 */

/** A link to a member's profile page, or an element the template names as the author's name. */
const PROFILE_HREF = /\/(members?|users?|u|profiles?|people)\/|(member|memberlist|profile)\.php\b|[?&](u|user|userid)=/i;
const NAME_CLASS = /(^|[\s_-])(username|user-?name|author-?name|poster-?name)([\s_-]|$)/i;
const NAME_CHARS = 40;
const AVATAR = /avatar/i;
const DATE_CHARS = 60;
/**
 * A post's date printed as text, where the template has no <time>: "Sun Dec 17, 2023 11:23 am"
 * (phpBB, after "by Bob »"), "May 12, 2024" (XenForo 1's DateTime span), "11-29-2024, 01:50 PM"
 * (vBulletin), "28/11/2025 at 7:22 pm", "Yesterday at 5:10 PM". The whole text must be the date.
 */
const DATE_TEXT =
  /^(posted:? (on )?)?(((mon|tue|wed|thu|fri|sat|sun)[a-z]*,? )?((jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(st|nd|rd|th)?,? \d{4}|\d{1,2}(st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,? \d{4})|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{4}-\d{2}-\d{2}|(today|yesterday)(?=,? (at )?\d))(,? (at )?\d{1,2}:\d{2}(:\d{2})? ?([ap]\.?m\.?)?)?$/i;

/** The author's name and the post's date found in `part`, as new blocks to put in its place. */
export function bylineOf(part: Element): Element[] {
  const doc = part.ownerDocument;
  const out: Element[] = [];
  const line = (text: string) => {
    const p = doc.createElement("p");
    p.textContent = text;
    out.push(p);
  };
  let name: string | null = null;
  for (const el of part.querySelectorAll("a[href], [class]")) {
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text === "" || text.length > NAME_CHARS) continue;
    const cls = el.getAttribute("class") ?? "";
    // An avatar links to the profile too, and one without a picture shows the name's initial ("K").
    if (AVATAR.test(cls)) continue;
    const href = el.localName === "a" ? (el.getAttribute("href") ?? "") : "";
    if (PROFILE_HREF.test(href) || NAME_CLASS.test(cls)) {
      name = text;
      break;
    }
  }
  if (name) line(name);
  const time = part.querySelector("time");
  const date = time ? squash(time.textContent ?? "") : dateText(part);
  if (date && date !== "" && date.length <= DATE_CHARS) line(date);
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** A label before a date that is not the post's: "Joined:", "Registered", "Member since", "Last seen". */
const OTHER_DATE = /(:|\b(joined|registered|member since|last (seen|active|visit(ed)?)))$/i;

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
    const labelled = OTHER_DATE.test(before) || (c.nodeType === 1 && (c as Element).localName === "dd");
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
