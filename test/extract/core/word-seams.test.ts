import { describe, expect, it } from "vitest";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";
import { ELEMENT_NODE, isSkipped, isText, visibleText } from "../../../functions/extract/output/dom.ts";
import { isInline, meetsMidWord, spaceSeams } from "../../../functions/extract/output/seams.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { mulberry32 } from "../../helpers/prng.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const shoes = [
  ["La Sportiva", "Aragon Climbing Shoes"],
  ["Scarpa", "Veloce Climbing Shoes"],
  ["Black Diamond", "Momentum Climbing Shoes"],
  ["Five Ten", "Anasazi Pro Climbing Shoes"],
  ["Evolv", "Shaman Climbing Shoes"],
];

/** A shop card whose brand and name are sibling spans that a stylesheet sets on lines of their own. */
const card = ([brand, name]: string[], i: number) =>
  `<li class="tile"><a href="/product/${i}"><span role="heading" aria-level="2"><span data-ui="product-brand">${brand}</span><span data-ui="product-title">${name}</span></span></a><div class="price"><span>$1${i}9.00</span><span>MSRP: $2${i}9.00</span></div></li>`;

const page = (grid: string, more = "") =>
  `<html><body><main><h1>Climbing shoes</h1><ul class="results">${grid}</ul>${more}</main></body></html>`;

describe("words at the seam of two inline elements", () => {
  it("a space goes between sibling spans that would run two words together", () => {
    const t = text(page(shoes.map(card).join("")), "https://shop.example.com/c/climbing-shoes");
    for (const [brand, name] of shoes) expect(t).toContain(`${brand} ${name}`);
    expect(t).toContain("$109.00 MSRP: $209.00");
    expect(t).not.toContain("SportivaAragon");
  });

  it("a card's facts set side by side keep their words apart", () => {
    const facts = (i: number) =>
      `<li class="tile"><a href="/product/${i}">Trail Runner ${i}</a><div class="facts"><span>Women's</span><span>Grey Blue</span><span>Neutral</span></div><span>$1${i}9.00</span></li>`;
    const t = text(page([1, 2, 3, 4, 5].map(facts).join("")), "https://shop.example.com/c/shoes");
    expect(t).toContain("Women's Grey Blue Neutral");
  });

  it("leaves words that markup splits mid-word, and text beside an inline element, as they are", () => {
    const prose = `<p>The <b>i</b>Phone, H<sub>2</sub>O and CO<sub>2</sub>,
      a <span class="drop">T</span><span>ypeset</span> cap, and <a href="/x">Read</a>More as one word, in a long paragraph of prose that
      explains, in plain words, how the things it names are written, so that the page is an article with a paragraph to keep.</p>`;
    const html = `<html><head><meta property="og:type" content="article"></head><body><article><h1>Names</h1>${prose}</article></body></html>`;
    const t = text(html, "https://news.example.com/2024/names");
    expect(t).toContain("The iPhone");
    expect(t).toContain("H2O and CO2");
    expect(t).toContain("Typeset");
    expect(t).toContain("ReadMore");
  });

  it("Markdown, HTML and the JSON tree read the words apart as the plain text does", () => {
    const html = page(
      shoes.map(card).join(""),
      `<p>The <b>i</b>Phone and H<sub>2</sub>O, <a href="/x">Read</a>More as one word.</p>`,
    );
    const render = (format: "markdown" | "html" | "json") => {
      const r = extractHtml(html, { url: "https://shop.example.com/c/climbing-shoes", format, links: false, imageLinks: false });
      if (!r.ok) throw new Error(r.error);
      return r.page.text;
    };
    const md = render("markdown");
    expect(md).toContain("[La Sportiva Aragon Climbing Shoes](https://shop.example.com/product/0)");
    expect(md).toContain("$109.00 MSRP: $209.00");
    expect(md).toContain("The **i**Phone and H2O, [Read](https://shop.example.com/x)More");
    expect(render("html")).toContain("<span>La Sportiva</span> <span>Aragon Climbing Shoes</span>");
    const json = JSON.stringify(render("json"));
    expect(json).toContain('"text":"Scarpa Veloce Climbing Shoes"');
    expect(json).not.toContain("ScarpaVeloce");
  });
});

describe("a word, then a number in an element of its own", () => {
  /** A spec list whose names and values are sibling spans that a stylesheet sets in two columns. */
  const spec = (rows: string[][], after = "") =>
    `<html><head><meta property="og:type" content="product"></head><body><main><h1>Once and Future World</h1>
    <p>An award-winning ecology writer goes looking for the wilderness we have forgotten, and finds that we are living in the midst of a disaster thousands of years in the making.</p>
    <h2>Product Key Features</h2><div class="details">${rows
      .map(
        ([k, v]) =>
          `<div class="row"><span class="name"><span>${k}</span></span><span class="value"><span>${v}</span></span></div>`,
      )
      .join("")}</div>${after}</main></body></html>`;

  it("a space goes between a spec's name and its number", () => {
    const rows = [
      ["Number of Pages", "240 Pages"],
      ["Publication Year", "2013"],
      ["Item Height", "0.9 in"],
      ["Language", "English"],
    ];
    const t = text(spec(rows), "https://shop.example.com/itm/225991068401");
    expect(t).toContain("Number of Pages 240 Pages");
    expect(t).toContain("Publication Year 2013");
    expect(t).toContain("Item Height 0.9 in");
    expect(t).not.toContain("Pages240");
  });

  it("leaves a superscript or subscript number, and a capital then a number, on the word they follow", () => {
    const after = `<p>A floor of <span>12 m</span><sup>2</sup> takes <span>CO</span><sub>2</sub> out of the air; the
      <span>Galaxy S</span><span>25</span> reads it, as a long paragraph about the plant and the room explains in plain words.</p>`;
    const t = text(spec([["Language", "English"]], after), "https://shop.example.com/itm/225991068401");
    expect(t).toContain("12 m2 takes CO2 out");
    expect(t).toContain("Galaxy S25 reads");
  });
});

/** The seam walk as it was, reading each inline element's visible text afresh: the reference. */
function spaceSeamsReference(root: Element): void {
  const walk = (node: Element): void => {
    let before: string | null = null;
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (isText(n)) {
        if (n.nodeValue) before = null;
        continue;
      }
      if (n.nodeType !== ELEMENT_NODE || isSkipped(n as Element)) continue;
      const el = n as Element;
      walk(el);
      if (!isInline(el.localName)) {
        before = null;
        continue;
      }
      const t = visibleText(el);
      if (t === "") continue;
      if (before !== null && meetsMidWord(before, t, el.localName)) node.insertBefore(root.ownerDocument.createTextNode(" "), el);
      before = t;
    }
  };
  walk(root);
}

describe("the seam walk reads each element's text once (output/seams.ts)", () => {
  it("puts the same spaces as the walk that read every inline element's text again, on 2,000 generated fragments", () => {
    const next = mulberry32(7);
    const pick = <T>(a: T[]): T => a[Math.floor(next() * a.length)] as T;
    const TAGS = ["span", "b", "a", "sup", "sub", "div", "p", "br", "td", "pre", "script", "em"];
    const WORDS = ["La", "Sportiva", "aragon", "240", "Pages", "x", "", " ", "SQL", "Data", "5"];
    const fragment = (depth: number): string => {
      let out = "";
      const n = 1 + Math.floor(next() * 4);
      for (let i = 0; i < n; i++) {
        if (depth > 3 || next() < 0.4) out += pick(WORDS);
        else {
          const tag = pick(TAGS);
          out += tag === "br" ? "<br>" : `<${tag}>${fragment(depth + 1)}</${tag}>`;
        }
      }
      return out;
    };
    let spaced = 0;
    for (let i = 0; i < 2000; i++) {
      const html = `<html><body><main>${fragment(0)}</main></body></html>`;
      const a = parseDocument(html);
      const b = parseDocument(html);
      const unspaced = a.body.innerHTML;
      spaceSeams(a.body);
      spaceSeamsReference(b.body);
      expect(a.body.innerHTML, html).toBe(b.body.innerHTML);
      if (a.body.innerHTML !== unspaced) spaced++;
    }
    // Enough of them have seams for the comparison to mean something.
    expect(spaced).toBeGreaterThan(200);
  });

  it("a chain of 500 inline elements over 400,000 inline siblings reads in time (the walk read all of them at every level: about 35 s)", () => {
    const paras = Array.from(
      { length: 12 },
      (_, i) => `<p>Paragraph ${i} of the article says something of its own about the subject.</p>`,
    ).join("");
    const html = `<html><head><title>Spans</title></head><body><article><h1>Spans</h1>${paras}<p>${"<span>".repeat(500)}${"<i>a</i>".repeat(400_000)}End of the spans.${"</span>".repeat(500)}</p></article></body></html>`;
    const out = extractHtml(html, { url: "https://example.com/spans", format: "markdown", links: true, imageLinks: false });
    expect(out.ok && String(out.page.text)).toContain("End of the spans.");
  });
});
