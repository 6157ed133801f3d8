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
const DATE_CHARS = 60;

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
    const href = el.localName === "a" ? (el.getAttribute("href") ?? "") : "";
    if (PROFILE_HREF.test(href) || NAME_CLASS.test(el.getAttribute("class") ?? "")) {
      name = text;
      break;
    }
  }
  if (name) line(name);
  const time = part.querySelector("time");
  const date = (time?.textContent ?? "").replace(/\s+/g, " ").trim();
  if (date !== "" && date.length <= DATE_CHARS) line(date);
  return out;
}
