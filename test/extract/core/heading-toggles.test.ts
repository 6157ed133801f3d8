import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://www.example.com/services/payroll") => extractMainText(html, url).text;

const page = (faq: string) => `<html><head><title>Payroll services</title></head><body>
  <header class="site-header"><a href="/">Home</a><button type="button" aria-expanded="false" aria-controls="menu">Open menu</button></header>
  <main><h1>Payroll services</h1>${para("payroll", 3)}<section class="faq"><h2>Frequently asked questions</h2>${faq}</section></main>
  <footer><p>Copyright 2025 Example Ltd.</p></footer></body></html>`;

const answers = [
  [
    "What is a payroll service?",
    "A payroll service pays your staff on time, files the taxes due on their wages and keeps the records.",
  ],
  [
    "Can I switch providers mid-year?",
    "Yes. We import the year's earlier payslips so that the year-end forms come out complete and correct.",
  ],
];

describe("accordion toggles that fill a heading", () => {
  it("keeps the question of a button inside a heading element", () => {
    const faq = answers
      .map(
        ([q, a], i) =>
          `<div class="faq-item"><h3><button type="button" aria-expanded="false" aria-controls="a${i}"><span>${q}</span><span class="icon"></span></button></h3><div id="a${i}" class="panel" aria-hidden="true"><p>${a}</p></div></div>`,
      )
      .join("");
    const t = text(page(faq));
    for (const [q, a] of answers) {
      expect(t).toContain(q);
      expect(t).toContain(a);
    }
  });

  it("keeps the question of a button inside an element with role heading", () => {
    const faq = answers
      .map(
        ([q, a]) =>
          `<div class="accordion-item"><div role="heading" aria-level="3"><button class="accordion-item__click-target" aria-expanded="false"><span class="accordion-item__title">${q}</span><div class="arrow" aria-hidden="true"></div></button></div><div class="accordion-item__content"><p>${a}</p></div></div>`,
      )
      .join("");
    const t = text(page(faq));
    for (const [q, a] of answers) {
      expect(t).toContain(q);
      expect(t).toContain(a);
    }
  });

  it("still drops a toggle's label outside any heading (a menu button, a 'show more' control)", () => {
    const faq = `<div class="faq-list">${answers.map(([q, a]) => `<h3>${q}</h3><p>${a}</p>`).join("")}</div><button type="button" aria-expanded="false">Show all questions</button>`;
    const t = text(page(faq));
    expect(t).toContain(answers[1]?.[0]);
    expect(t).not.toContain("Show all questions");
    expect(t).not.toContain("Open menu");
  });

  it("drops a button beside a heading's own words (a copy or share control next to the title)", () => {
    const faq = `<h3 id="pay-dates">Pay dates <button type="button" title="Copy link to this section">Copy link</button></h3>${para("pay date", 2)}
      <h3>${answers[0]?.[0]}</h3><p>${answers[0]?.[1]}</p>`;
    const t = text(page(faq));
    expect(t).toContain("Pay dates");
    expect(t).toContain("how the pay date works");
    expect(t).not.toContain("Copy link");
  });

  it("keeps a toggle's question when the heading holds only a number or a sign beside it", () => {
    const faq = answers
      .map(
        ([q, a], i) =>
          `<h3><span class="num">${i + 1}.</span> <button aria-expanded="false">${q}</button> <span aria-hidden="true">+</span></h3><div class="answer"><p>${a}</p></div>`,
      )
      .join("");
    const t = text(page(faq));
    for (const [q, a] of answers) {
      expect(t).toContain(q);
      expect(t).toContain(a);
    }
  });
});
