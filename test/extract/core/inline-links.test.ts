import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Plan a wedding</h1>${body}</article></main></body></html>`,
    "https://www.example.com/story/plan-a-wedding",
  ).text;

describe("links inside a sentence whose class names furniture", () => {
  it("keeps a link's words in the middle of a paragraph, whatever its class says", () => {
    const t = page(
      `${para("budget", 3)}<p>After <a class="recommendation-inline-link" href="/engagement-announcements">announcing your engagement</a>, you may be eager to jump into wedding planning, or feel overwhelmed by it all.</p>${para("venue", 3)}`,
    );
    expect(t).toContain("After announcing your engagement, you may be eager");
  });

  it("still drops a short line that is nothing but the furniture and its label", () => {
    const t = page(
      `${para("budget", 3)}<p>Related: <a class="recommendation-inline-link" href="/guest-list">How to cut your guest list</a></p>${para("venue", 3)}`,
    );
    expect(t).toContain("how the venue works");
    expect(t).not.toContain("How to cut your guest list");
  });
});
