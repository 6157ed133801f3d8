import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL_ = "https://news.example.com/2019/11/19/tennis-story";
const HEAD = `<title>Argentina wins</title><meta property="og:type" content="article">`;
const text = (body: string) => extractMainText(`<html><head>${HEAD}</head><body>${body}</body></html>`, URL_).text;
const story = (inside: string) =>
  `<main><article><h1>Argentina wins</h1><div class="body">${para("serve", 4)}${inside}${para("volley", 4)}${para("rally", 4)}</div></article></main>`;

describe("a date, a time or a reading time standing alone in an article", () => {
  it("drops the block (a dateline repeated in the body, a reading time)", () => {
    for (const line of [
      "November 19, 2019, 9:02 AM",
      "Wednesday 20 November 2019 9:22 am",
      "Updated at 1:23 p.m.",
      "Published 18 November 2019",
      "Mar 6th 2026 4 Min Read",
      "13 MIN READ",
      "2019-11-20 17:27:46",
    ]) {
      const t = text(story(`<div class="stamp"><span>${line}</span></div>`));
      expect(t).toContain("how the volley works");
      expect(t, line).not.toContain(line);
    }
  });

  it("keeps a time that heads a live blog's entry, a table's figures and sentences with dates", () => {
    const live = `<p><strong>7:30 p.m.</strong></p>`;
    const table = `<table><tr><th>Security</th><th>Last</th><th>Change</th></tr><tr><td>ACME INC.</td><td>225.86</td><td>-12.99</td></tr></table>`;
    const sentence = `<p>November 19, 2019 was the day the final began.</p>`;
    const t = text(story(`${live}${table}${sentence}`));
    expect(t).toContain("7:30 p.m.");
    expect(t).toContain("-12.99");
    expect(t).toContain("November 19, 2019 was the day");
  });
});
