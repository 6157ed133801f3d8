import type { Page } from "puppeteer-core";

/**
 * `browser_profile: "stealth"` (spec 4.1): the tells a headless Chromium gives away by default are
 * hidden on the run's page: the "HeadlessChrome" user agent and its client hints, navigator.webdriver,
 * an empty plugin list and languages. `lite` leaves the browser as it is. This is the common baseline
 * of anti-detection browsers, not a fingerprint generator: sites that fingerprint the GPU, fonts or
 * TLS stack can still tell (and then the run ends SITE_BLOCKED).
 */
export async function applyStealth(page: Page): Promise<void> {
  const ua = (await page.browser().userAgent()).replace("HeadlessChrome/", "Chrome/");
  const major = /Chrome\/(\d+)/.exec(ua)?.[1] ?? "120";
  await page.setUserAgent({
    userAgent: ua,
    userAgentMetadata: {
      brands: [
        { brand: "Chromium", version: major },
        { brand: "Google Chrome", version: major },
        { brand: "Not=A?Brand", version: "24" },
      ],
      fullVersion: `${major}.0.0.0`,
      platform: "Linux",
      platformVersion: "",
      architecture: "x86",
      model: "",
      mobile: false,
    },
  });
  await page.setExtraHTTPHeaders({ "accept-language": "en-US,en;q=0.9" });
  await page.evaluateOnNewDocument(() => {
    Object.defineProperty(Navigator.prototype, "webdriver", { get: () => undefined, configurable: true });
    Object.defineProperty(Navigator.prototype, "languages", { get: () => ["en-US", "en"], configurable: true });
    Object.defineProperty(Navigator.prototype, "plugins", {
      get: () => [{ name: "PDF Viewer", filename: "internal-pdf-viewer", description: "Portable Document Format" }],
      configurable: true,
    });
  });
}
