import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageHtml } from "../../containers/browser/page-html.ts";
import { chromeAvailable, launchTestBrowser, type TestBrowser } from "../helpers/test-session.ts";

const hasChrome = chromeAvailable("page-html tests");

// The HTML the renderer and the agent read from a page: page.content()'s, cut in the page.
describe.skipIf(!hasChrome)("pageHtml (containers/browser/page-html.ts)", () => {
  let tb: TestBrowser;
  beforeAll(async () => {
    tb = await launchTestBrowser();
  });
  afterAll(() => tb?.close());

  it("is page.content() below the cap, doctype and comments before the root included, and its first `max` characters above", async () => {
    const page = await tb.browser.newPage();
    try {
      await page.setContent(
        `<!doctype html><!-- before the root --><html lang="en"><head><title>T</title></head><body><p>é 😀 ${"x".repeat(5000)}</p><script>document.body.append(document.createElement("hr"))</script></body></html><!-- after -->`,
      );
      const whole = await page.content();
      expect(whole.startsWith("<!DOCTYPE html><!-- before the root --><html")).toBe(true);
      expect(await pageHtml(page, 1_000_000)).toBe(whole);
      expect(await pageHtml(page, 60)).toBe(whole.slice(0, 60));
      expect(await pageHtml(page, whole.length)).toBe(whole);
    } finally {
      await page.close();
    }
  });
});
