/**
 * A product page's shipping and returns panel ("Shipping & Returns", "Delivery and returns",
 * "Shipping and return policies"): the shop's terms, the same on every product, shown in a tab,
 * an accordion or a section under the description. The panel goes with its title: a heading's
 * section (headedSection) or the <details> around a <summary>. A heading that names only one of
 * the two ("Delivery", "Free returns") may introduce the product's own delivery options and stays.
 */
import { headedSection } from "./carousel.ts";
import type { StatsMap } from "./score.ts";

const POLICY_TITLE = /\b(shipping|delivery)\b.*\b(returns?|exchanges?)\b|\b(returns?|exchanges?)\b.*\b(shipping|delivery)\b/i;
const TITLE_CHARS = 60;
/** A panel holding this share of the root is a wrapper that happens to start with the title. */
const WRAPPER_SHARE = 0.5;

/** Removes the shipping and returns panels inside `root`; never one holding `name` (the product's h1). */
export function dropPolicyPanels(root: Element, stats: StatsMap, name: Element | null): void {
  const total = stats.get(root)?.chars ?? 0;
  const doomed: Element[][] = [];
  for (const title of root.querySelectorAll("h2, h3, h4, h5, h6, details > summary")) {
    const text = (title.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length > TITLE_CHARS || !POLICY_TITLE.test(text)) continue;
    const panel = title.tagName === "SUMMARY" && title.parentElement ? [title.parentElement] : headedSection(title, root, name);
    let chars = 0;
    for (const el of panel) chars += stats.get(el)?.chars ?? 0;
    if (panel.some((el) => name && el.contains(name)) || chars > WRAPPER_SHARE * total) continue;
    doomed.push(panel);
  }
  for (const panel of doomed) for (const el of panel) el.remove();
}
