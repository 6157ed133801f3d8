import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL_ = "https://news.example.com/world/2019/11/19/harbour-story";
const HEAD = `<title>Harbour reopens after the storm</title><meta property="og:type" content="article">`;
const text = (body: string) => extractMainText(`<html><head>${HEAD}</head><body>${body}</body></html>`, URL_).text;

describe("the head of an article", () => {
  it("drops a prose-free header block holding the headline, its standfirst heading and the dates", () => {
    // A news site's <header> (or wrapper div) inside the article: headline, a standfirst set as a
    // heading, the publish and update times; too long in all to be taken for a dateline.
    const head = `<header class="clearfix"><h1>Harbour reopens after the storm</h1>
      <h3>The harbour master says ships can dock again after the winter storm closed the port for a week of repairs.</h3>
      <div class="dates"><time>PUBLISHED: 10:48, Tue, Nov 19, 2019</time> | <time>UPDATED: 11:05, Tue, Nov 19, 2019</time></div></header>`;
    const t = text(
      `<main><article>${head}<div class="body">${para("harbour", 4)}${para("pier", 4)}${para("quay", 4)}</div></article></main>`,
    );
    expect(t).toContain("how the harbour works");
    expect(t).not.toContain("ships can dock again");
    expect(t).not.toContain("PUBLISHED");
  });

  it("drops a wrapper that holds nothing but the headline", () => {
    const t = text(
      `<main><div class="post-single"><div id="post-prep"><h1>Harbour reopens after the storm and the ships come back to the quay</h1></div>
      <figure><img src="/a.jpg" alt=""></figure><div class="content">${para("harbour", 4)}${para("pier", 4)}${para("quay", 4)}</div></div></main>`,
    );
    expect(t).toContain("how the pier works");
    expect(t).not.toContain("ships come back to the quay");
  });

  it("keeps a block of facts that sits in the headline's wrapper", () => {
    // Near miss: the wrapper holds more than a head (a list of key facts): the list is content.
    const facts = `<ul><li>The port closed for seven days while divers checked the piers.</li><li>Forty ships waited outside the harbour wall for the all-clear.</li><li>Repairs cost the city two million euros, paid from the storm fund.</li></ul>`;
    const t = text(
      `<main><article><div class="top"><h1>Harbour reopens after the storm</h1>${facts}</div><div class="body">${para("harbour", 4)}${para("pier", 4)}${para("quay", 4)}</div></article></main>`,
    );
    expect(t).toContain("Forty ships waited outside the harbour wall");
    expect(t).toContain("how the harbour works");
  });
});

describe("inline labels ahead of an article's text", () => {
  const body = `<div class="body">${para("harbour", 4)}${para("pier", 4)}${para("quay", 4)}</div>`;

  it("drops a section kicker set as a bare link or span before the headline", () => {
    const t = text(
      `<main><article><a class="article__category" href="/news">NEWS</a><h1>Harbour reopens after the storm</h1>${body}</article></main>`,
    );
    expect(t).toContain("how the harbour works");
    expect(t).not.toContain("NEWS");
  });

  it("keeps a longer inline note there (an editor's note)", () => {
    const note = "<em>Editor's note: this story was updated on Tuesday with the harbour master's reply to the report.</em>";
    const t = text(`<main><article>${note}<h1>Harbour reopens after the storm</h1>${body}</article></main>`);
    expect(t).toContain("Editor's note");
  });
});
