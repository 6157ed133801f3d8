import { describe, expect, it } from "vitest";
import { toCleanHtml } from "../../../functions/extract/output/clean-html.ts";
import { collectImageLinks, collectLinks } from "../../../functions/extract/output/links.ts";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { toPlainText } from "../../../functions/extract/output/plain-text.ts";
import { toTree } from "../../../functions/extract/output/tree.ts";
import { DocTreeSchema } from "../../../functions/extract/output/tree-schema.ts";
import { mulberry32 as rng } from "../../helpers/prng.ts";
import { BASE, body } from "./helpers.ts";

const TAGS = [
  "p",
  "div",
  "span",
  "b",
  "i",
  "em",
  "code",
  "a",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "h2",
  "table",
  "tr",
  "td",
  "th",
  "dl",
  "dt",
  "dd",
  "figure",
  "figcaption",
  "section",
  "s",
  "script",
  "style",
  "br",
  "img",
  "hr",
];
const TEXTS = [
  "plain text",
  "  spaced\n\n  out ",
  "*stars* and _unders_",
  "# hash",
  "1. one",
  "- dash",
  "pipe | here",
  "`tick`",
  "[x](y)",
  "&lt;tag&gt; &amp;",
  "日本語",
  "עברית",
  "<>",
  "\\",
  "~~",
];

function randomHtml(next: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  let out = "";
  const n = 1 + Math.floor(next() * 4);
  for (let i = 0; i < n; i++) {
    if (depth <= 0 || next() < 0.3) {
      out += pick(TEXTS).replace(/</g, "&lt;");
      continue;
    }
    const tag = pick(TAGS);
    if (tag === "br" || tag === "hr") out += `<${tag}>`;
    else if (tag === "img")
      out += pick([
        '<img src="/a.png" alt="a">',
        '<img src="data:image/png;base64,AAAA" alt="d">',
        '<img data-src="l.jpg" srcset="s.jpg 1x, b.jpg 2x">',
      ]);
    else {
      const attrs =
        tag === "a"
          ? pick([' href="/x"', ' href="#f"', ' href="javascript:x()"', ' href="mailto:a@b.c"'])
          : tag === "td"
            ? ' colspan="2"'
            : "";
      out += `<${tag}${attrs}>${randomHtml(next, depth - 1)}</${tag}>`;
    }
  }
  return out;
}

describe("output invariants on generated pages", () => {
  it("never throws and keeps its promises on 300 random pages", () => {
    const next = rng(42);
    for (let i = 0; i < 300; i++) {
      const html = randomHtml(next, 5);
      const root = body(html);
      const md = toMarkdown(root, BASE);
      expect(md, html).not.toMatch(/\n\n\n|[ \t]+\n|[ \t]+$|^\s/);
      expect(md, html).not.toContain("data:");
      expect(md, html).not.toContain("javascript:");
      const tree = toTree(root, BASE);
      expect(DocTreeSchema.safeParse(tree).success, html).toBe(true);
      const clean = toCleanHtml(root, BASE);
      expect(clean, html).not.toMatch(/<script|<style|data:|javascript:/);
      const plain = toPlainText(root);
      if (!html.includes("<pre")) expect(plain, html).not.toMatch(/\n\n|^\s|\s$/);
      for (const url of [...collectLinks(root, BASE), ...collectImageLinks(root, BASE)]) expect(url).toMatch(/^https?:\/\//);
    }
  });
});
