import { describe, expect, it } from "vitest";
import { type ExtractOptions, extractHtml } from "../../../functions/extract/extract.ts";
import { articlePage, docsPage } from "./pages.ts";

const opts = (o: Partial<ExtractOptions> = {}): ExtractOptions => ({
  url: "https://example.com/2024/05/canyons",
  format: "markdown",
  links: false,
  imageLinks: false,
  ...o,
});

describe("extractHtml", () => {
  it("returns metadata from the whole document and markdown of the main content", () => {
    const r = extractHtml(articlePage, opts());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.page.title).toBe("Canyon story");
    expect(r.page.language).toBe("en");
    expect(r.page.author).toBe("Jane Doe");
    expect(typeof r.page.text).toBe("string");
    expect(r.page.text).toContain("how the erosion works");
    expect(r.page.text).not.toContain("Most read");
    expect(r.page.textLength).toBeGreaterThan(300);
    expect(r.page.links).toBeUndefined();
  });

  it("renders html and the json tree on request", () => {
    const html = extractHtml(docsPage, opts({ format: "html" }));
    expect(html.ok && typeof html.page.text === "string" && html.page.text.includes("<table")).toBe(true);
    const json = extractHtml(docsPage, opts({ format: "json" }));
    expect(json.ok && typeof json.page.text === "object" && json.page.text.type === "document").toBe(true);
  });

  it("gives links of the same scope as the text", () => {
    const r = extractHtml(articlePage, opts({ links: true }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.page.links).toBeDefined();
    expect(r.page.links).not.toContain("https://example.com/sport");
  });

  it("answers empty_content when the page has no text", () => {
    expect(extractHtml("<html><body><img src='x.png'><script>1</script></body></html>", opts())).toEqual({
      ok: false,
      error: "empty_content",
    });
    expect(extractHtml("", opts())).toEqual({ ok: false, error: "empty_content" });
  });

  it("include selectors return the scope verbatim, bypassing boilerplate removal", () => {
    const r = extractHtml(articlePage, opts({ includeSelectors: ["aside.sidebar", "#missing"], links: true }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.page.text).toContain("Most read");
    expect(r.page.text).not.toContain("how the erosion works");
    expect(r.page.unmatchedSelectors).toEqual(["#missing"]);
    expect(r.page.links).toContain("https://example.com/a");
    // Metadata still comes from the whole document (rule 3).
    expect(r.page.title).toBe("Canyon story");
  });

  it("exclude selectors are removed before extraction", () => {
    const r = extractHtml(articlePage, opts({ excludeSelectors: ["article p:nth-of-type(3)"] }));
    expect(r.ok).toBe(true);
    const kept = extractHtml(articlePage, opts());
    if (r.ok && kept.ok) expect((r.page.text as string).length).toBeLessThan((kept.page.text as string).length);
  });

  it("answers selector_not_matched with candidates when no include selector matches", () => {
    const r = extractHtml(articlePage, opts({ includeSelectors: [".nothing-here"] }));
    expect(r.ok).toBe(false);
    if (r.ok || r.error !== "selector_not_matched") return;
    expect(r.unmatchedSelectors).toEqual([".nothing-here"]);
    expect(r.candidateSelectors.length).toBeGreaterThan(0);
    expect(r.candidateSelectors.length).toBeLessThanOrEqual(10);
  });
});
