/**
 * Dismissible notices: the announcements a site pins above its pages ("Scam alert: never send
 * money to…", "We've updated our privacy policy", "Meetups are being planned in your region"),
 * each with a control to dismiss it. Forum software prints them in every thread (XenForo's
 * notices list, Stack Exchange's banners); the reader closes them, and they say nothing of the
 * page. A block classed a notice that holds its own dismiss control goes.
 */
import { textStats } from "./dom.ts";

/** A class naming a notice or a list of them: "notice", "notices--block", "js-notice", "site-notice". */
const NOTICE_CLASS = /(^|[\s_-])notices?([\s_-]|$)/i;
/** A control that dismisses it: named so by class, title or label ("notice-dismiss", "Dismiss notice"). */
const DISMISS = '[class*="dismiss" i], [title*="dismiss" i], [aria-label*="dismiss" i], [data-dismiss]';
/** A notice is a line or a short paragraph: a longer block is the page's own. */
const NOTICE_CHARS = 600;

/** Removes the dismissible notices inside `root`. */
export function dropDismissibleNotices(root: Element): void {
  const doomed: Element[] = [];
  for (const el of root.querySelectorAll("[class]")) {
    if (!NOTICE_CLASS.test(el.getAttribute("class") ?? "") || doomed.some((d) => d.contains(el))) continue;
    if (!el.querySelector(DISMISS) || el.querySelector("h1")) continue;
    const { chars } = textStats(el);
    if (chars > 0 && chars <= NOTICE_CHARS) doomed.push(el);
  }
  for (const el of doomed) el.remove();
}
