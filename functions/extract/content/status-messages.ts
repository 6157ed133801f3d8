/**
 * Status messages: the live regions a script fills to tell screen-reader users what just
 * happened ("Loaded 338 results", "Added to list", "Loading…", "Unable to add item. Please try
 * again."). role="status", role="alert" or aria-live mark them; the page prints them in its
 * markup, often ahead of time, but they say nothing of the page. A short message goes; a live
 * region that holds a heading or a longer text (a ticker, a results list updated in place) stays,
 * and so does what a product page updates in place as the shopper picks a variant: its price
 * ("$169.99") and the choice ("Color: Sandstone").
 */
import { textStats } from "./dom.ts";

/** A status message says this much at most. */
const MESSAGE_CHARS = 80;

/** A price ("$169.99", "24,90 €") or a picked option ("Color: Sandstone"): the page's own data. */
const DATUM = /[$€£¥₹]\s?\d|\d\s?[$€£¥₹]|^[^:]{1,20}:\s*\S/u;

/** Removes the short status messages inside `root`. */
export function dropStatusMessages(root: Element): void {
  const doomed: Element[] = [];
  for (const el of root.querySelectorAll('[role="status"], [role="alert"], [aria-live]')) {
    if (el.getAttribute("aria-live") === "off") continue;
    if (doomed.some((d) => d.contains(el)) || el.querySelector("h1, h2, h3, h4, h5, h6, p, li")) continue;
    const { chars } = textStats(el);
    if (chars > 0 && chars <= MESSAGE_CHARS && !DATUM.test((el.textContent ?? "").trim())) doomed.push(el);
  }
  for (const el of doomed) el.remove();
}
