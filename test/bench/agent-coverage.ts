/**
 * The agent bench's interactive-coverage comparison: where each element Browser Use highlights
 * stands against the elements our page state lists, per page and summed over the run.
 */
import type { Page } from "puppeteer-core";

const out = (s: string) => process.stdout.write(`${s}\n`);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** One page of the size bench: our state's sizes, Browser Use's, and the coverage of theirs by ours. */
export interface Row {
  id: string;
  type: string;
  ours: { approx: number; o200k: number; chars: number; elements: number; inViewport: number };
  /** Our viewport-first state (the viewport and 500 px around it), the scope of browser-use's Agent default. */
  oursViewport?: { approx: number; o200k: number; chars: number; elements: number };
  bu?: Record<"default" | "agent" | "whole", { approx: number; o200k: number; chars: number; elements: number }>;
  /** browser-use's whole-page highlighted elements against ours (same element, inside one of ours, holding one of ours, none). */
  cover?: {
    same: number;
    inside: number;
    holds: number;
    label: number;
    hidden: number;
    clipped: number;
    invisible: number;
    noHref: number;
    missed: number;
    unresolved: number;
    examples: string[];
  };
}

/**
 * Where each of browser-use's highlighted elements (xpaths in the top document) stands against ours
 * (`data-osprey-idx`). Those none of ours covers are sorted by why: the label of a control we list,
 * under aria-hidden or inert (we leave those out on purpose), clipped to ≤1px (screen-reader-only
 * links), transparent or visibility-hidden (closed menus), an `<a>` without href (scripted, and
 * scripts are off here), or other (the ones to look at).
 */
export async function coverage(page: Page, items: { tag: string; xpath: string }[]): Promise<NonNullable<Row["cover"]>> {
  return page.evaluate((list) => {
    const r = {
      same: 0,
      inside: 0,
      holds: 0,
      missed: 0,
      unresolved: 0,
      label: 0,
      hidden: 0,
      clipped: 0,
      invisible: 0,
      noHref: 0,
      examples: [] as string[],
    };
    const clipped = (el: Element) => {
      for (let e: Element | null = el; e; e = e.parentElement) {
        const b = e.getBoundingClientRect();
        if ((b.width <= 1 || b.height <= 1) && (e === el || getComputedStyle(e).overflow !== "visible")) return true;
      }
      return false;
    };
    for (const { tag, xpath } of list) {
      let el: Element | null = null;
      try {
        el = document.evaluate(`/${xpath}`, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null)
          .singleNodeValue as Element | null;
      } catch {}
      if (!el || el.localName !== tag) r.unresolved++;
      else if (el.hasAttribute("data-osprey-idx")) r.same++;
      else if (el.closest("[data-osprey-idx]")) r.inside++;
      else if (el.querySelector("[data-osprey-idx]")) r.holds++;
      else if (el instanceof HTMLLabelElement && el.control?.hasAttribute("data-osprey-idx")) r.label++;
      else if (el.closest('[aria-hidden="true"], [inert]')) r.hidden++;
      else if (clipped(el)) r.clipped++;
      else if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) r.invisible++;
      else if (el.localName === "a" && !el.hasAttribute("href")) r.noHref++;
      else {
        r.missed++;
        if (r.examples.length < 3) r.examples.push(el.outerHTML.replace(/\s+/g, " ").slice(0, 140));
      }
    }
    return r;
  }, items);
}

/** Prints the coverage section of the size bench (rows measured with Browser Use) and returns its summary. */
export function coverageReport(rows: Row[]): Record<string, unknown> {
  out("\n## Interactive coverage: browser-use's highlighted elements (whole page, expansion -1) against ours");
  const c = rows.map((r) => r.cover).filter((x) => x !== undefined);
  const tot = (
    k: "same" | "inside" | "holds" | "label" | "hidden" | "clipped" | "invisible" | "noHref" | "missed" | "unresolved",
  ) => sum(c.map((x) => x[k]));
  out(
    `theirs ${sum(rows.map((r) => r.bu?.whole.elements ?? 0))}, ours ${sum(rows.map((r) => r.ours.elements))}: same element ${tot("same")}, inside one of ours ${tot("inside")}, holds one of ours ${tot("holds")}`,
  );
  out(
    `not covered by ours: label of a control we list ${tot("label")}, under aria-hidden/inert ${tot("hidden")}, clipped to ≤1px ${tot("clipped")}, opacity 0 or visibility hidden ${tot("invisible")}, <a> without href ${tot("noHref")}, other ${tot("missed")}; xpath not resolved (frame/shadow/odd names) ${tot("unresolved")}`,
  );
  const fewer = rows.filter((r) => r.bu && r.ours.elements < r.bu.whole.elements);
  const fewerVp = rows.filter((r) => r.bu && r.ours.inViewport < r.bu.default.elements);
  out(
    `pages where we list fewer elements: ${fewer.length}/${rows.length} whole page (${fewer.map((r) => `${r.id.slice(0, 10)} ${r.ours.elements}<${r.bu?.whole.elements}`).join(", ") || "none"})`,
  );
  out(
    `  in the viewport (ours inViewport vs theirs at expansion 0): ${fewerVp.length}/${rows.length} (${fewerVp.map((r) => `${r.id.slice(0, 10)} ${r.ours.inViewport}<${r.bu?.default.elements}`).join(", ") || "none"})`,
  );
  const missed = rows.filter((r) => (r.cover?.missed ?? 0) > 0);
  out(`pages with "other" elements of theirs that none of ours covers: ${missed.length}/${rows.length}`);
  for (const r of missed)
    out(`  ${r.id.slice(0, 12)} (${r.type}): ${r.cover?.missed} missed, e.g. ${r.cover?.examples.join("  |  ")}`);
  return {
    theirs: sum(rows.map((r) => r.bu?.whole.elements ?? 0)),
    ours: sum(rows.map((r) => r.ours.elements)),
    same: tot("same"),
    inside: tot("inside"),
    holds: tot("holds"),
    label: tot("label"),
    hidden: tot("hidden"),
    clipped: tot("clipped"),
    invisible: tot("invisible"),
    noHref: tot("noHref"),
    missed: tot("missed"),
    unresolved: tot("unresolved"),
    pagesFewer: fewer.length,
    pagesFewerInViewport: fewerVp.length,
    pagesMissed: missed.length,
  };
}
