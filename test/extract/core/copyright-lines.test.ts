import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (inner: string) =>
  extractMainText(
    `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>Saving for a home</h1>${para("budget", 4)}${inner}${para("deposit", 4)}</article></main></body></html>`,
    "https://www.example.com/learning/saving-for-a-home",
  ).text;

describe("copyright notices inside the page's container", () => {
  it("drops the site's copyright line", () => {
    for (const line of [
      "© Example Financial Group, Inc. All rights reserved.",
      "Copyright © 2025 Example Construction Inc",
      "Copyright 2025 © Jane Doe.",
    ]) {
      const t = text(`<p class="note">${line}</p>`);
      expect(t).toContain("how the deposit works");
      expect(t, line).not.toContain(line.slice(0, 20));
    }
  });

  it("keeps a title and a sentence about copyright", () => {
    const t = text(
      `<h2>Copyright Office Weighs In on AI Training</h2><p>Copyright law changed in 1976, and the office has said more about it since.</p>`,
    );
    expect(t).toContain("Copyright Office Weighs In on AI Training");
    expect(t).toContain("Copyright law changed in 1976");
  });
});
