import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL_ = "https://news.example.com/2019/11/18/markets-story";
const HEAD = `<title>Markets slip</title><meta property="og:type" content="article">`;
const text = (body: string) => extractMainText(`<html><head>${HEAD}</head><body>${body}</body></html>`, URL_).text;
const story = (tail: string, gallery = "") =>
  `<main><article><h1>Markets slip</h1><div class="body">${para("market", 4)}${gallery}${para("bond", 4)}${para("trade", 4)}${tail}</div></article></main>`;

describe("the credits and contact lines a news story ends with", () => {
  it("drops who reported and edited it, and where to follow or write to the writer", () => {
    for (const line of [
      "(Reporting by Jane Roe; additional reporting by Sam Poe; Editing by John Doe)",
      "Additional reporting by Joseph Hudak",
      "Associated Press writers Alan Fram and Zeke Miller contributed to this report.",
      "Follow Example News on Instagram, Facebook, Twitter and YouTube.",
      "Write to Al Root at allen.root@example.com",
    ]) {
      const t = text(story(`<p>${line}</p>`));
      expect(t).toContain("how the trade works");
      expect(t, line).not.toContain(line.slice(0, 20));
    }
  });

  it("keeps such words inside the story and a last paragraph that only mentions them", () => {
    const mid = "<p>Reporting by local papers, he said, had been thin for years, and the bank never answered its questions.</p>";
    const last =
      "<p>Follow-up talks are planned for March, when the ministers meet again; analysts expect little news from Twitter or elsewhere before then.</p>";
    const t = text(
      `<main><article><h1>Markets slip</h1><div class="body">${para("market", 4)}${mid}${para("bond", 4)}${para("trade", 4)}${last}</div></article></main>`,
    );
    expect(t).toContain("Reporting by local papers");
    expect(t).toContain("Follow-up talks are planned");
  });

  it("drops a gallery's slide counters", () => {
    // A slideshow in the story: each slide's image and its position.
    const slide = (i: number) => `<div class="slide"><img src="/${i}.jpg" alt=""><div class="count">Image ${i} of 3</div></div>`;
    const gallery = `<div class="slideshow">${slide(1)}${slide(2)}${slide(3)}<div class="pos">3 / 3</div></div>`;
    const t = text(story("", gallery));
    expect(t).toContain("how the market works");
    expect(t).not.toContain("Image 1 of 3");
    expect(t).not.toContain("3 / 3");
  });
});
