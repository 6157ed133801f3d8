import { describe, expect, it } from "vitest";
import { parseDocument } from "../../../functions/extract/parse.ts";

describe("parseDocument", () => {
  it("wraps fragments in a body", () => {
    expect(parseDocument("<p>Hello</p>").body?.textContent).toBe("Hello");
  });
  it("recovers content that precedes a late <body> tag", () => {
    const doc = parseDocument(
      "<!doctype html><html><head><title>t</title></head><div>Early</div><body><p>Late</p></body></html>",
    );
    expect(doc.body?.textContent).toContain("Early");
    expect(doc.body?.textContent).toContain("Late");
  });
  it("recovers the body when a script precedes <head>", () => {
    const doc = parseDocument(
      "<!doctype html><html><script>var a;</script><head><title>t</title></head><body><p>Body text</p></body></html>",
    );
    expect(doc.body?.textContent).toContain("Body text");
    expect(doc.querySelector("title")?.textContent).toBe("t");
  });
  it("keeps the page after a stray <![CDATA[ marker in the body; leaves CDATA in scripts alone", () => {
    const doc = parseDocument(
      "<!doctype html><html><head><title>t</title></head><body>\n<![CDATA[\n<div id=top></div>" +
        "<div class=thread><p>First post text</p><p>Second post text</p></div>" +
        "<script>//<![CDATA[\nvar a = 1;\n//]]></script></body></html>",
    );
    expect(doc.body?.textContent).toContain("First post text");
    expect(doc.body?.textContent).toContain("Second post text");
    expect(doc.body?.textContent?.split("First post")[0]).not.toContain("CDATA[");
    expect(doc.querySelector("script")?.textContent).toContain("//<![CDATA[");
  });
  it("recovers the page when a <style> or <script> precedes the doctype", () => {
    for (const lead of ["<style>#x{display:none}</style>\n\n", "<script>var a = 1;</script>\n"]) {
      const doc = parseDocument(
        `${lead}<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><p>Body text</p></body></html>`,
      );
      expect(doc.body?.textContent).toContain("Body text");
      expect(doc.querySelector("title")?.textContent).toBe("t");
    }
  });
});

describe("parseDocument on markup whose regex passes were quadratic", () => {
  // Each lazy or [^>]*> regex read to the end of the page from every unclosed tag: these pages
  // took minutes before (past the test timeout); each case checks what the page still gives.
  it("300,000 unclosed <script> tags after a stray CDATA marker: the marker still goes", () => {
    const page = `<!doctype html><html><head><title>t</title></head><body><p>Kept text</p><![CDATA[ x ]]><script>//<![CDATA[\nvar a;\n//]]></script>${"<script>y".repeat(300_000)}</body></html>`;
    const doc = parseDocument(page);
    expect(doc.body?.textContent).toContain("Kept text");
    expect(doc.querySelector("script")?.textContent).toContain("//<![CDATA[");
    // The stray markers around " x " went; the script's own stayed (its text follows).
    expect(doc.body?.textContent?.startsWith("Kept text x //<![CDATA[")).toBe(true);
  });

  it("100,000 unclosed doctypes on a page the parser must normalise: its text is kept", () => {
    const page = `<p>Before the doctype</p><!doctype html><html><head><title>t</title></head><body><p>Body text</p>${"<!doctype x".repeat(100_000)}</body></html>`;
    const doc = parseDocument(page);
    expect(doc.body?.textContent).toContain("Before the doctype");
    expect(doc.body?.textContent).toContain("Body text");
  });
});
