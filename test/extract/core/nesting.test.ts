import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";
import { capNesting, MAX_DEPTH } from "../../../functions/extract/nesting.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { mulberry32 } from "../../helpers/prng.ts";
import { para } from "./pages.ts";

const URL = "https://news.example.com/2026/11/ospreys-return";

/** A story, then `depth` unclosed wrappers (a broken template, or a hostile page) holding its last paragraph. */
const nested = (depth: number) => `<html><head><title>Ospreys return</title></head><body><article>
  <h1>Ospreys return to the river</h1>${para("osprey", 4)}
  ${"<div class='wrap'><span>".repeat(depth)}<p>The last pair nested on the old bridge this spring, the wardens said.</p>${"</span></div>".repeat(depth)}
  </article></body></html>`;

/** The deepest element's depth under the document's root (<html> is 1), walked without recursion. */
function maxDepth(doc: Document): number {
  let max = 0;
  const stack: [Element, number][] = [[doc.documentElement, 1]];
  while (stack.length > 0) {
    const [el, d] = stack.pop() as [Element, number];
    max = Math.max(max, d);
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push([c, d + 1]);
  }
  return max;
}

describe("nesting capped as a browser caps it (nesting.ts)", () => {
  it("a page nested thousands of elements deep is read, not lost to a stack overflow, in every format (markdown, html, json)", () => {
    const html = nested(5000);
    const { text } = extractMainText(html, URL);
    expect(text).toContain("osprey note number 4");
    expect(text).toContain("The last pair nested on the old bridge");
    for (const format of ["markdown", "html", "json"] as const) {
      const out = extractHtml(html, { url: URL, format, links: true, imageLinks: false });
      expect(out.ok).toBe(true);
      expect(JSON.stringify(out)).toContain("The last pair nested on the old bridge");
    }
  });

  it("the parsed document nests no deeper than MAX_DEPTH; what lay deeper sits side by side, each element keeping its text", () => {
    const doc = parseDocument(
      `<html><body>${"<div>".repeat(MAX_DEPTH + 300)}<p>first <b>bold</b> end</p><ul><li>second</li></ul>third${"</div>".repeat(MAX_DEPTH + 300)}<p>after</p></body></html>`,
    );
    expect(maxDepth(doc)).toBe(MAX_DEPTH);
    // A paragraph and a list item keep their words (they lost them to the flattening before);
    // an element met past the limit goes beside the paragraph, and text after a nested element's
    // end lands in the element before it ("third" in the first <div> past the limit), as Chromium
    // builds the same page (checked against it below).
    expect(doc.querySelector("p")?.textContent).toBe("first  end");
    expect(doc.querySelector("li")?.textContent).toBe("second");
    expect(doc.querySelector("b")?.previousElementSibling?.localName).toBe("p");
    expect(doc.body.textContent).toBe("thirdfirst  endboldsecondafter");
  });

  it("a template that never closes its items keeps each item's heading and paragraph past the limit (markdown)", () => {
    const items = Array.from(
      { length: 700 },
      (_, i) => `<div class="item"><h3>Title number ${i}</h3><p>The text of item ${i}, a sentence about it.</p>`,
    ).join("");
    const out = extractHtml(`<html><head><title>Items</title></head><body><main><h1>Items</h1>${items}</main></body></html>`, {
      url: URL,
      format: "markdown",
      links: true,
      imageLinks: false,
    });
    const text = out.ok ? String(out.page.text) : "";
    for (const i of [0, 300, 600, 699])
      expect(text).toContain(`### Title number ${i}\n\nThe text of item ${i}, a sentence about it.`);
  });

  it("an element past the cap with 150,000 children is flattened, not lost to a stack overflow (the children were spread into one call)", () => {
    const doc = parseDocument(
      `<html><body>${"<div>".repeat(MAX_DEPTH + 10)}<ul>${"<li>item".repeat(150_000)}</ul><p>after</p></body></html>`,
    );
    expect(maxDepth(doc)).toBeLessThanOrEqual(MAX_DEPTH);
    const items = doc.querySelectorAll("li");
    expect(items.length).toBe(150_000);
    expect(doc.body.textContent).toBe(`${"item".repeat(150_000)}after`);
  });

  it("a page within the cap is left exactly as parsed (a list 100 elements deep stays a list)", () => {
    const html = `<html><body>${"<div>".repeat(100)}<ul><li>one</li><li>two</li></ul>${"</div>".repeat(100)}</body></html>`;
    const doc = parseDocument(html);
    const before = doc.body.innerHTML;
    capNesting(doc);
    expect(doc.body.innerHTML).toBe(before);
    expect(maxDepth(doc)).toBe(104);
    expect(doc.querySelectorAll("ul > li").length).toBe(2);
  });
});

const CHROME = process.env.CHROME_PATH || "/usr/bin/chromium";

describe.skipIf(!isExecutable(CHROME))("the same tree as Chromium builds past the limit", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await puppeteer.launch({
      executablePath: CHROME,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
    });
  }, 60_000);
  afterAll(() => browser?.close());

  it("on 40 generated pages nested 500 to 560 deep, with text, closing tags and elements opened past the limit", async () => {
    const page = await browser.newPage();
    const next = mulberry32(5);
    // Elements both parsers build alike at any depth (htmlparser2 has no adoption agency for <b>,
    // nor HTML's implied closes of <p> and headings in scope): the depth rule is what is compared.
    const TAGS = ["div", "section", "span", "article"];
    const pick = () => TAGS[Math.floor(next() * TAGS.length)] as string;
    for (let i = 0; i < 40; i++) {
      let html = "<html><head></head><body>";
      const open: string[] = [];
      const depth = 500 + Math.floor(next() * 60);
      for (let k = 0; k < depth; k++) {
        const t = pick();
        html += `<${t}>${next() < 0.1 ? `t${k} ` : ""}`;
        open.push(t);
      }
      for (let k = 0; k < 60; k++) {
        const r = next();
        if (r < 0.35) {
          const t = pick();
          html += `<${t}>`;
          open.push(t);
        } else if (r < 0.6 && open.length > 0) html += `</${open.pop()}>`;
        else html += `w${k} `;
      }
      html += "</body></html>";
      await page.setContent(html);
      const theirs = await page.evaluate(() => document.body.innerHTML);
      expect(parseDocument(html).body.innerHTML, `page ${i}`).toBe(theirs);
    }
    await page.close();
  }, 60_000);
});
