import { describe, expect, it } from "vitest";
import { pruneDocument } from "../../../functions/extract/content/prune.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><h1>Financial goals for millennials</h1>${body}</main></body></html>`,
    "https://example.com/financial-goals-for-millennials",
  ).text;
const widget = (kind: string, inner: string) =>
  `<div class="elementor-element elementor-widget elementor-widget-${kind}"><div class="elementor-widget-container">${inner}</div></div>`;
const section = (...widgets: string[]) =>
  `<section class="elementor-section"><div class="elementor-column"><div class="elementor-widget-wrap">${widgets.join("")}</div></div></section>`;
const goals = [
  [
    "Build an emergency fund",
    "Life is unpredictable. Aim to save three to six months of essential expenses in an account you can reach.",
  ],
  [
    "Pay down high-interest debt",
    "Credit card debt can snowball quickly. Pay the highest rate first while meeting every other minimum.",
  ],
  [
    "Start saving for retirement",
    "It is never too early. Contribute to a 401(k) if your employer matches, and raise it with each pay rise.",
  ],
  [
    "Automate your savings",
    "Make good habits effortless by automating transfers to savings on the day after each payday arrives.",
  ],
];
const goalSections = goals
  .map(([h, p]) => section(widget("heading", `<h3>${h}</h3>`), widget("text-editor", `<p>${p}</p>`)))
  .join("");

describe("short paragraphs a page builder sets in text widgets", () => {
  it("keeps them on a page built of such widgets", () => {
    const t = text(section(widget("text-editor", para("budget", 3))) + goalSections);
    expect(t).toContain("Build an emergency fund");
    expect(t).toContain("Aim to save three to six months");
    expect(t).toContain("automating transfers to savings");
  });

  it("still prunes a lone short text widget (a footer's blurb), on a page not built of them", () => {
    const t = text(
      `${para("budget", 4)}${para("saving", 4)}<div class="site-bottom">${widget("text-editor", "<p>We help readers make better money decisions every day.</p>")}</div>`,
    );
    expect(t).toContain("how the saving works");
    expect(t).not.toContain("better money decisions");
  });

  it("still prunes text widgets in a column hidden on phones (a desktop side column of calls to action)", () => {
    const side = `<div class="elementor-column elementor-hidden-mobile"><div class="elementor-widget-wrap">${widget("text-editor", "<p>Let us help! Call us today or fill out this quick form for a free consultation.</p>")}${widget("text-editor", "<p>I highly recommend this firm. They worked hard on my case and kept me informed.</p>")}</div></div>`;
    const t = text(section(widget("text-editor", para("budget", 3))) + goalSections + side);
    expect(t).toContain("Aim to save three to six months");
    expect(t).not.toContain("Call us today");
    expect(t).not.toContain("highly recommend this firm");
  });

  it("still prunes a text widget set among links (a widget of recent posts)", () => {
    const posts = `<div class="elementor-widget-wrap">${widget("text-editor", "<p>Fresh reading picked by our editors this week.</p>")}<ul><li><a href="/a">How to budget on a low income in a big city</a></li><li><a href="/b">Ten ways to cut your grocery bill this winter</a></li><li><a href="/c">What to do when your credit score drops</a></li></ul></div>`;
    const doc = parseDocument(
      `<!doctype html><html><body><main>${section(widget("text-editor", para("budget", 3)))}${posts}${goalSections}</main></body></html>`,
    );
    pruneDocument(doc.body);
    const left = doc.body.textContent ?? "";
    expect(left).toContain("Aim to save three to six months");
    expect(left).not.toContain("Fresh reading picked");
  });
});
