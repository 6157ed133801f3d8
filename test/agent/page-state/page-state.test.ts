import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { abridge, placeholder } from "../../../containers/agent/page-state/abridge.ts";
import {
  approxTokens,
  capturePageState,
  type PageElement,
  type PageState,
  renderPageState,
  resolveElement,
  VIEWPORT_MARGIN_PX,
} from "../../../containers/agent/page-state/index.ts";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { type FixtureSite, startFixtureSite } from "./fixture-site.ts";

const CHROME = process.env.CHROME_PATH || "/usr/bin/chromium";
const hasChrome = isExecutable(CHROME);
if (!hasChrome) {
  // biome-ignore lint/suspicious/noConsole: say why a whole suite is skipped
  console.warn(`page-state tests skipped: no Chromium executable at ${CHROME} (set CHROME_PATH or install chromium)`);
}

describe.skipIf(!hasChrome)("page state", () => {
  let browser: Browser;
  let profile: string;
  let fixture: FixtureSite;

  // One browser for the file, with default site isolation (unlike the fetch pool's), so that the
  // cross-site frame really is out of process.
  beforeAll(async () => {
    profile = await mkdtemp(path.join(tmpdir(), "osprey-page-state-"));
    [browser, fixture] = await Promise.all([
      puppeteer.launch({
        executablePath: CHROME,
        headless: true,
        userDataDir: profile,
        defaultViewport: { width: 1280, height: 900 },
        args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"].concat([
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
        ]),
      }),
      startFixtureSite(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fixture?.close()]);
    if (profile) await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });

  /** Opens `path` of the fixture site in a fresh page, hands it to `fn`, and closes the page whatever happens. */
  async function onPage<T>(path: string, fn: (page: Page) => Promise<T>): Promise<T> {
    const page = await browser.newPage();
    try {
      await page.goto(`${fixture.site.url}${path}`, { waitUntil: "load" });
      return await fn(page);
    } finally {
      await page.close().catch(() => {});
    }
  }

  const find = (state: PageState, name: string): PageElement => {
    const el = state.elements.find((e) => e.name === name);
    if (!el) throw new Error(`no element named ${JSON.stringify(name)} in ${JSON.stringify(state.elements.map((e) => e.name))}`);
    return el;
  };

  /** Clicks `[index]` through resolveElement, as an action would. */
  async function click(page: Page, state: PageState, index: number): Promise<void> {
    const handle = await resolveElement(page, state, index);
    if (!handle) throw new Error(`[${index}] did not resolve`);
    try {
      await handle.click();
    } finally {
      await handle.dispose();
    }
  }

  it("login form: labelled fields, placeholder, checkbox state, and never the password", async () => {
    await onPage("/login", async (page) => {
      await page.type("#email", "ann@example.com");
      await page.type("#pw", "hunter2-secret");
      const state = await capturePageState(page);
      const email = find(state, "Email address");
      expect(email).toMatchObject({ role: "textbox", type: "email", value: "ann@example.com", placeholder: "you@example.com" });
      const pw = find(state, "Password");
      expect(pw).toMatchObject({ role: "textbox", type: "password", filled: true });
      expect(pw.value).toBeUndefined();
      expect(find(state, "Remember me")).toMatchObject({ role: "checkbox", checked: true });
      expect(find(state, "Log in").role).toBe("button");
      expect(find(state, "Forgot your password?")).toMatchObject({ role: "link", href: `${fixture.site.url}/forgot` });
      const text = renderPageState(state);
      expect(JSON.stringify(state)).not.toContain("hunter2");
      expect(text).not.toContain("hunter2");
      // Labels sit right before their fields' markers, and a name already said is not repeated.
      expect(text).toContain(`Email address [${email.index} textbox:email ="ann@example.com"]`);
      expect(text).toContain(`Password [${pw.index} textbox:password filled]`);
      expect(text).toContain(`[${find(state, "Log in").index} button]Log in`);
      // A page that fits on the screen is not abridged.
      expect(state.abridgedChars).toBeUndefined();
      expect(text).not.toContain("Far from the viewport");
      await click(page, state, find(state, "Log in").index);
      await page.waitForFunction(() => document.getElementById("msg")?.textContent === "Welcome back");
    });
  });

  it("search results and pagination links, with page text like [3] not mistaken for a marker", async () => {
    await onPage("/search", async (page) => {
      const state = await capturePageState(page);
      expect(find(state, "Search products")).toMatchObject({ role: "searchbox", value: "boats" });
      for (const name of ["Red kayak", "Blue canoe", "Green paddle board", "1", "2", "3", "Next page"]) {
        expect(find(state, name).role).toBe("link");
      }
      expect(state.text).toContain("Cited source (3) is not a marker.");
      const next = find(state, "Next page");
      expect(state.text).toContain(`[${next.index}]Next page`);
      // Indexes run in reading order.
      expect(state.elements.map((e) => e.index)).toEqual(state.elements.map((_, i) => i + 1));
      await click(page, state, next.index);
      await page.waitForFunction(() => location.search === "?page=2");
      expect(await resolveElement(page, state, next.index)).toBeNull(); // a new document: the old indexes are gone
    });
  });

  it("product page: select with options, quantity, textarea placeholder, disabled button; clicks land", async () => {
    await onPage("/product", async (page) => {
      const state = await capturePageState(page);
      expect(find(state, "Size")).toMatchObject({ role: "combobox", value: "Medium", options: ["Small", "Medium", "Large"] });
      expect(find(state, "Quantity")).toMatchObject({ role: "spinbutton", value: "1", type: "number" });
      expect(find(state, "Gift note")).toMatchObject({ role: "textbox", tag: "textarea", placeholder: "Write a note" });
      expect(find(state, "Buy now").disabled).toBe(true);
      const rendered = renderPageState(state);
      expect(rendered).toContain(`Size [${find(state, "Size").index} combobox ="Medium" options:Small|Medium|Large]`);
      expect(rendered).toContain(`[${find(state, "Buy now").index} button disabled]Buy now`);
      const qty = await resolveElement(page, state, find(state, "Quantity").index);
      try {
        await qty?.evaluate((el) => {
          (el as HTMLInputElement).value = "3";
        });
      } finally {
        await qty?.dispose();
      }
      await click(page, state, find(state, "Add to cart").index);
      await page.waitForFunction(() => document.getElementById("cart")?.textContent === "Added 3");
    });
  });

  it("an open modal dialog: only its elements are offered until it closes", async () => {
    await onPage("/modal", async (page) => {
      const state = await capturePageState(page);
      expect(state.modal).toBe(true);
      expect(state.elements.map((e) => e.name)).toEqual(["Accept all"]);
      expect(renderPageState(state)).toContain("A modal dialog is open");
      await click(page, state, find(state, "Accept all").index);
      const after = await capturePageState(page);
      expect(after.modal).toBeUndefined();
      expect(after.elements.map((e) => e.name)).toEqual(["Behind the dialog"]);
      // The old state's [1] is gone: the dialog's button is hidden and the new capture renumbered the page.
      expect(await resolveElement(page, state, 1)).toBeNull();
    });
  });

  it("same-origin, cross-origin and cross-site (out-of-process) iframes: text in place, buttons indexed and clickable", async () => {
    await onPage("/frames", async (page) => {
      await page.waitForFunction(() => document.querySelectorAll("iframe").length === 3);
      const targets = browser.targets().filter((t) => t.type() === "other" && t.url().includes("widget.localhost"));
      expect(targets).toHaveLength(1); // the cross-site frame has a target (a process) of its own
      const state = await capturePageState(page);
      const inner = find(state, "Inner button");
      const partner = find(state, "Partner claim");
      const crossSite = find(state, "Cross-site claim");
      expect([inner.frame, partner.frame, crossSite.frame]).toEqual(["0", "1", "2"]);
      expect(find(state, "Cross-site code")).toMatchObject({ role: "textbox", frame: "2" });
      // Frame content sits between the parent's paragraphs, in order.
      const t = state.text;
      const order = ["Before the frames", "Same-origin frame text", "Between the frames", "Partner offers"].concat([
        "Before the cross-site frame",
        "Cross-site offers",
        "After the frames",
      ]);
      expect(order.every((s) => t.includes(s))).toBe(true);
      expect(order.map((s) => t.indexOf(s))).toEqual(order.map((s) => t.indexOf(s)).sort((a, b) => a - b));
      // Boxes are in top-page coordinates: each frame's button lies inside its iframe.
      const frames = await page.$$eval("iframe", (els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
      for (const [i, el] of [inner, partner, crossSite].entries()) {
        const f = frames[i];
        if (!f) throw new Error("no iframe box");
        expect(el.box.y).toBeGreaterThanOrEqual(Math.floor(f.y));
        expect(el.box.y + el.box.h).toBeLessThanOrEqual(Math.ceil(f.y + f.height));
      }
      for (const el of [inner, partner, crossSite]) await click(page, state, el.index);
      const texts = await Promise.all(page.frames().map((f) => f.evaluate(() => document.body?.textContent ?? "")));
      expect(texts.filter((x) => x.includes("Claimed"))).toHaveLength(2);
      expect(texts.join("|")).toContain("Inner clicked");
    });
  });

  it("each index resolves to its own element when a frame's elements sit between the top page's (the walk's own marks corrected)", async () => {
    const page = await browser.newPage();
    try {
      await page.setContent(
        `<button>Top first</button><iframe srcdoc="<button>Framed</button>"></iframe><button>Top last</button>`,
        { waitUntil: "load" },
      );
      const state = await capturePageState(page);
      expect(state.elements.map((e) => [e.index, e.name])).toEqual([
        [1, "Top first"],
        [2, "Framed"],
        [3, "Top last"],
      ]);
      for (const el of state.elements) {
        const handle = await resolveElement(page, state, el.index);
        expect(await handle?.evaluate((x) => x.textContent), `[${el.index}]`).toBe(el.name);
        await handle?.dispose();
      }
      // A page of one frame keeps the walk's marks as they are, and they resolve too.
      await page.setContent(`<button>Only one</button><a href="#x">Only link</a>`);
      const single = await capturePageState(page);
      for (const el of single.elements) {
        const handle = await resolveElement(page, single, el.index);
        expect(await handle?.evaluate((x) => x.textContent), `[${el.index}]`).toBe(el.name);
        await handle?.dispose();
      }
      expect(await resolveElement(page, state, 1)).toBeNull(); // the earlier document's state
    } finally {
      await page.close().catch(() => {});
    }
  });

  it("open shadow roots, slotted content, onclick and pointer-cursor elements", async () => {
    await onPage("/widgets", async (page) => {
      const state = await capturePageState(page);
      const buy = find(state, "Shadow buy");
      expect(buy).toMatchObject({ role: "button", inShadow: true });
      expect(state.text).toContain("Slotted title");
      const card = state.elements.find((e) => e.name.startsWith("Open the card"));
      expect(card?.role).toBe("clickable");
      const tile = find(state, "Tile with pointer");
      expect(tile.role).toBe("clickable");
      // The tile's span inherits the pointer cursor but is not a second element.
      expect(state.elements.filter((e) => e.name === "Tile with pointer")).toHaveLength(1);
      await click(page, state, buy.index);
      await page.waitForFunction(() => document.querySelector("shop-widget")?.shadowRoot?.textContent?.includes("Shadow bought"));
      if (!card) throw new Error("no card");
      await click(page, state, card.index);
      await page.waitForFunction(() => document.querySelector("#card b")?.textContent === "Card opened");
    });
  });

  it("hidden, invisible, aria-hidden, zero-size and inert elements are left out", async () => {
    await onPage("/hidden", async (page) => {
      const state = await capturePageState(page);
      // The checkbox itself is invisible: its label is what a user clicks, so the label stands for it.
      expect(state.elements.map((e) => e.name)).toEqual(["Visible button", "Subscribe to news"]);
      expect(find(state, "Subscribe to news")).toMatchObject({ role: "checkbox", checked: false, tag: "label" });
      const all = JSON.stringify(state);
      for (const s of [
        "Display none",
        "hidden div",
        "Invisible",
        "Aria hidden",
        "aria-hidden",
        "Zero size",
        "Inert",
        "tok-123",
        "Hidden paragraph",
      ]) {
        expect(all).not.toContain(s);
      }
      await click(page, state, find(state, "Subscribe to news").index);
      expect(await page.$eval("input[type=checkbox]", (el) => (el as HTMLInputElement).checked)).toBe(true);
    });
  });

  it("viewport scope: only the viewport and 500 px around it, numbered from 1, with what lies beyond counted", async () => {
    await onPage("/long", async (page) => {
      const top = await capturePageState(page, { scope: "viewport" });
      // 900 px of viewport and 500 px below it: sections 1 to about 14, not the link at the bottom.
      expect(top.elements).toEqual([]);
      expect(top.text).toContain("Section 12");
      expect(top.text).not.toContain("Section 16");
      expect(top.outside?.above).toEqual({ px: 0, elements: 0, chars: 0 });
      expect(top.outside?.below.elements).toBe(1);
      expect(top.outside?.below.chars).toBeGreaterThan(100);
      expect(top.outside?.below.px).toBe(top.scroll.pageHeight - 900 - VIEWPORT_MARGIN_PX);
      expect(renderPageState(top)).toMatch(
        /\n\(… [\d,]+ px below not shown: 1 elements, [\d,]+ characters of text; scroll down, or read_page for the whole page\)$/,
      );
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const bottom = await capturePageState(page, { scope: "viewport" });
      expect(bottom.elements.map((e) => [e.index, e.name])).toEqual([[1, "Link at the bottom"]]);
      expect(bottom.text).not.toContain("Top of the long page");
      expect(renderPageState(bottom)).toMatch(/^---\n\(… [\d,]+ px above not shown: 0 elements, [\d,]+ characters/m);
      // The scoped numbering is the one written into the page: [1] resolves to the link.
      const handle = await resolveElement(page, bottom, 1);
      expect(await handle?.evaluate((el) => el.textContent)).toBe("Link at the bottom");
      await handle?.dispose();
      // The whole page, read after, numbers the same link among all elements again.
      expect(find(await capturePageState(page), "Link at the bottom").index).toBe(1);
    });
    // A page that fits: nothing outside, the same state as the whole page's.
    await onPage("/search", async (page) => {
      const scoped = await capturePageState(page, { scope: "viewport" });
      const whole = await capturePageState(page);
      expect(scoped.outside).toBeUndefined();
      expect(renderPageState(scoped)).toBe(renderPageState(whole));
    });
  });

  it("long page: scroll position and viewport flags; optional screenshot; text cap keeps markers", async () => {
    await onPage("/long", async (page) => {
      const top = await capturePageState(page, { screenshot: true });
      expect(top.scroll).toMatchObject({ x: 0, y: 0, width: 1280, height: 900 });
      expect(top.scroll.pageHeight).toBeGreaterThan(4000);
      const link = find(top, "Link at the bottom");
      expect(link.inViewport).toBe(false);
      expect(
        Buffer.from(top.screenshot ?? "", "base64")
          .subarray(1, 4)
          .toString(),
      ).toBe("PNG");
      expect(renderPageState(top)).toMatch(/Viewport 1280x900 at \(0,0\) of \d+x\d+: 0px above, \d+px below/);
      // Text more than a viewport's height below is counted, not sent; the far link keeps its marker.
      expect(top.text).toContain("Section 12");
      expect(top.text).not.toContain("Section 40");
      expect(top.abridgedChars).toBeGreaterThan(100);
      expect(top.text).toMatch(/\(… \d+ characters\)\n\[\d+\]Link at the bottom$/);
      expect(renderPageState(top)).toContain(`[${link.index} link]Link at the bottom`);
      expect(renderPageState(top)).toContain("Far from the viewport only headings and elements are shown");
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const bottom = await capturePageState(page, { maxTextChars: 100 });
      expect(bottom.scroll.y).toBeGreaterThan(3000);
      expect(find(bottom, "Link at the bottom").inViewport).toBe(true);
      expect(bottom.screenshot).toBeUndefined();
      expect(bottom.truncatedChars).toBeGreaterThan(0);
      // Scrolled down: the heading far above is kept, the sections next to it are not.
      expect(bottom.text.startsWith("Top of the long page\n(… ")).toBe(true);
      expect(bottom.text).not.toContain("Section 1\n");
      expect(bottom.text).toContain(`[${find(bottom, "Link at the bottom").index}]`);
      expect(renderPageState(bottom)).toContain("more characters of page text left out");
    });
  });

  it("abridge: whole near the viewport; beyond it headings, markers with the start of their text, and counts", () => {
    const pos = (top: number, bottom: number) => `\uE003${top}:${bottom}\uE002`;
    const boxes = new Map([
      [1, { x: 0, y: 10, w: 50, h: 20 }],
      [2, { x: 0, y: 5000, w: 50, h: 20 }],
      [3, { x: 0, y: 5100, w: 50, h: 20 }],
    ]);
    const long = "Lorem ipsum dolor sit amet. ".repeat(10);
    const linkText = "A very long link text that goes on and on, well past the cut";
    const text = [
      `${pos(0, 40)}Intro text [1]${pos(10, 30)}Near link\uE006`,
      `${pos(3000, 3040)}\uE004Far heading\uE005`,
      `${pos(3100, 3400)}${long}`,
      `${pos(5000, 5020)}Read [2]${pos(5000, 5020)}${linkText}\uE006 more words`,
      `[3]\uE006`,
    ].join("\n");
    const near = { top: -900, bottom: 1800 };
    const out = abridge(text, (n) => boxes.get(n), near);
    expect(out.text).toBe(
      [
        "Intro text [1]Near link",
        "Far heading",
        placeholder(long.trim().length),
        ` [2]${linkText.slice(0, 50).trimEnd()}… `,
        "[3]",
      ].join("\n"),
    );
    expect(out.abridged).toBe(long.trim().length + "Read".length + (linkText.length - 50) + "more words".length);
    // Without a window only the sentinels go.
    expect(abridge(text, (n) => boxes.get(n)).text).not.toMatch(/[\uE003-\uE006]/);
    expect(abridge(text, (n) => boxes.get(n)).text).toContain(long.trim());
    expect(placeholder(1240)).toBe("(… 1,240 characters)");
  });

  it("render: a far element's name is cut and said by the start of its text; repeated names said once", () => {
    const el = (index: number, name: string, y: number): PageElement => ({
      index,
      role: "link",
      name,
      tag: "a",
      inViewport: y < 900,
      box: { x: 0, y, w: 10, h: 10 },
    });
    const name = "An image of a very long description of a photograph that nobody will read";
    const state: PageState = {
      capture: "c",
      url: "https://example.com/",
      title: "T",
      scroll: { x: 0, y: 0, width: 1280, height: 900, pageWidth: 1280, pageHeight: 9000 },
      elements: [el(1, "Next Next", 10), el(2, name, 5000), el(3, name, 5000), el(4, "Title of the story", 5000)],
      text: `[1]Next\n[2]\nCaption\n[3]${name.slice(0, 49)}…\n[4]Title of the story`,
    };
    const text = renderPageState(state);
    expect(text).toContain("[1 link]Next");
    expect(text).toContain(`[2 link "${name.slice(0, 49).trimEnd()}…"]`);
    expect(text).toContain(`[3 link]${name.slice(0, 49)}…`);
    expect(text).toContain("[4 link]Title of the story");
  });

  it("approxTokens counts words, numbers and punctuation", () => {
    expect(approxTokens("")).toBe(0);
    expect(approxTokens("Sign in to Example")).toBe(4);
    expect(approxTokens("[12 button]")).toBe(4);
    expect(approxTokens("1234567")).toBe(3);
  });
});
