import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

// No og:type, no story URL: the page is read as untyped, and the article's own date rule does not run.
const URL_ = "https://example.org/resources/how-rivers-bend";
const text = (inside: string) =>
  extractMainText(
    `<!doctype html><html><head><title>How rivers bend</title></head><body><main><div class="post"><h1>How rivers bend</h1>${inside}</div></main></body></html>`,
    URL_,
  ).text;
const intro = "<p>Why a river never runs straight for long, and what its bends tell us about the ground.</p>";
const body = `${para("meander", 4)}${para("levee", 4)}${para("delta", 4)}`;

describe("the dateline at the head of an untyped post", () => {
  it("drops a date and a reading time printed in blocks of their own under the intro", () => {
    const t = text(
      `${intro}<div class="post-info"><div>Jane Doe</div><div>Dec 19, 2025</div><div>12 min read</div></div>${body}`,
    );
    expect(t).toContain("how the meander works");
    expect(t).toContain("Why a river never runs straight");
    expect(t).not.toContain("Dec 19, 2025");
    expect(t).not.toContain("12 min read");
  });

  it("drops a date with the reading time nested in it, and a reading time in capitals", () => {
    const t = text(`<div class="date-read">January 17, 2025 <div class="min-read"><div>8 min read</div></div></div>${body}`);
    expect(t).not.toContain("January 17, 2025");
    expect(t).not.toContain("8 min read");
    expect(text(`<div class="stamp">3 MIN. READ</div>${body}`)).not.toContain("MIN. READ");
  });

  it("keeps a date further down the page, and a sentence that holds a date", () => {
    const t = text(
      `<p>The survey ran from March 2, 2024 to the end of the flood season.</p>${body}<div class="entry-date">March 16, 2026</div>${para("silt", 2)}`,
    );
    expect(t).toContain("The survey ran from March 2, 2024");
    expect(t).toContain("March 16, 2026");
  });

  it("keeps the date lines of a thread's posts", () => {
    const post = (user: string, topic: string, day: string) =>
      `<div class="message"><div class="message-user"><a href="/u/${user}">${user}</a></div><div class="date">${day}</div><div class="message-body">${para(topic, 2)}</div></div>`;
    const t = extractMainText(
      `<!doctype html><html><head><title>Thread</title></head><body><div class="thread"><h1>Which tent for winter?</h1>${post("alice", "tent", "Dec 3, 2025")}${post("bob", "stove", "Dec 4, 2025")}${post("carol", "snow anchor", "Dec 5, 2025")}</div></body></html>`,
      "https://forum.example.org/threads/which-tent-for-winter.123/",
    ).text;
    expect(t).toContain("how the tent works");
    expect(t).toContain("Dec 3, 2025");
    expect(t).toContain("Dec 5, 2025");
  });
});

describe("the reading time at the head of an article, with a stop after 'min'", () => {
  it("drops '3 MIN. READ' under a story's headline", () => {
    const t = extractMainText(
      `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>How rivers bend</h1>${intro}<div class="stamp">3 MIN. READ</div>${body}</article></main></body></html>`,
      "https://example.org/blog/how-rivers-bend",
    ).text;
    expect(t).toContain("how the levee works");
    expect(t).not.toContain("MIN. READ");
  });

  it("keeps a sentence that speaks of a reading time", () => {
    const t = extractMainText(
      `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>How rivers bend</h1>${para("bend", 2)}<p>Each guide is a 3 min. read, short enough for the bus.</p>${body}</article></main></body></html>`,
      "https://example.org/blog/how-rivers-bend",
    ).text;
    expect(t).toContain("Each guide is a 3 min. read, short enough for the bus.");
  });
});
