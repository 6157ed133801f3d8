import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL_ = "https://www.example.com/learn/ergonomic-desk-setup";
const text = (body: string) =>
  extractMainText(`<html><head><title>Desk setup</title></head><body>${body}</body></html>`, URL_).text;

/** A card for another page: its title is the link, its excerpt and date are plain text. */
const card = (title: string) =>
  `<article class="card"><h3><a href="/learn/${title.length}">${title}</a></h3><p>Two lines from the other page about ${title.toLowerCase()}, to tempt the reader into one more click.</p><span class="date">Mar 11, 2026</span></article>`;
const cards = `${card("Is an ergonomic mouse better for me?")}${card("Workspace questions and answers")}${card("How to sit at a standing desk")}`;
const page = (section: string) =>
  `<main><h1>Desk setup</h1><div class="content">${para("monitor", 4)}${para("keyboard", 4)}${para("chair", 4)}</div>${section}</main>`;

describe("teaser sections whose cards carry excerpts", () => {
  it("drops them under a label that can only mean other pages, though most of their text is no link", () => {
    for (const label of ["Related articles", "Recent posts", "You may also like", "Explore more", "From our blog"]) {
      const t = text(page(`<section class="cards"><h2>${label}</h2><div class="grid">${cards}</div></section>`));
      expect(t).toContain("how the chair works");
      expect(t, label).not.toContain("Workspace questions and answers");
      expect(t, label).not.toContain("tempt the reader");
    }
  });

  it("keeps a page's own section under a label that may also open one (resources, read more)", () => {
    const own = `<p>The resources below give more detail on posture at work, written by occupational therapists for office workers.</p><ul><li><a href="/a">Posture guide</a> (PDF)</li><li><a href="/b">Desk height calculator</a></li></ul>`;
    for (const label of ["Additional resources", "Read more", "See also"]) {
      const t = text(page(`<section><h2>${label}</h2>${own}</section>`));
      expect(t, label).toContain("written by occupational therapists");
    }
  });
});
