import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const URL_ = "https://www.example.edu/continuing-education/programs/";

const areas = [
  {
    name: "Project Management",
    blurb:
      "Projects run late when nobody owns the plan. Our project management courses teach planning, scheduling and risk so that teams deliver what they promised, on time and within budget.",
    courses: ["Agile Delivery", "Scheduling", "PMP Exam Preparation"],
  },
  {
    name: "Data Analytics",
    blurb:
      "Every department now makes decisions from data. These courses take working professionals from spreadsheets to dashboards and statistical models they can explain to their managers.",
    courses: ["Introduction to SQL", "Power BI", "Statistics"],
  },
  {
    name: "Human Resources",
    blurb:
      "People are an organisation's largest cost and its greatest asset. Our human resources programmes cover hiring, employment law, compensation and the certifications the field asks for.",
    courses: ["Employment Law", "Compensation", "SHRM Review"],
  },
];

const slug = (s: string) => s.toLowerCase().replace(/\W+/g, "-");

/** A section of the index: a heading, a paragraph and a list of `links` (pairs of label and href). */
const section = (name: string, blurb: string, links: string) =>
  `<div class="card"><h3>${name}</h3><p>${blurb}</p><div class="links"><ul>${links}</ul></div></div>`;

const page = (sections: string, extra = "") => `<html><body><main><h1>Professional Development Programs</h1>
  <p>Over sixty certificate programmes for working professionals, taught online, in the evenings and at weekends by practitioners in their fields.</p>
  ${sections}${extra}</main></body></html>`;

describe("lists of the page's own children", () => {
  it("an index page keeps its lists of links to the pages under it", () => {
    const html = page(
      areas
        .map((a) =>
          section(
            a.name,
            a.blurb,
            a.courses
              .map((c) => `<li><a href="/continuing-education/programs/${slug(a.name)}/${slug(c)}/">${c}</a></li>`)
              .join(""),
          ),
        )
        .join(""),
    );
    const t = text(html, URL_);
    for (const a of areas) {
      expect(t).toContain(a.name);
      for (const c of a.courses) expect(t).toContain(c);
    }
  });

  it("a list of links elsewhere on the site, and a filter's options, still go", () => {
    const elsewhere = ["Campus Map", "Parking", "Library Hours"]
      .map((x) => `<li><a href="/about/${slug(x)}/">${x}</a></li>`)
      .join("");
    const options = ["Online Only", "Evening Classes", "Weekend Boot Camps", "Corporate On-Site"]
      .map((x) => `<div role="option"><a href="/continuing-education/programs/${slug(x)}/">${x}</a><span>12</span></div>`)
      .join("");
    const html = page(
      areas.map((a) => section(a.name, a.blurb, elsewhere)).join(""),
      `<div class="formats"><div role="listbox" aria-label="Format">${options}</div></div>`,
    );
    const t = text(html, URL_);
    for (const a of areas) expect(t).toContain(a.blurb.slice(0, 40));
    for (const x of ["Campus Map", "Library Hours", "Online Only", "Weekend Boot Camps"]) expect(t).not.toContain(x);
  });
});
