import { describe, expect, it } from "vitest";
import { needsRendering } from "../../functions/fetch/needs-render.ts";

const BUNDLE = `<script src="/static/js/main.4f1c2a.js"></script>`;
const page = (body: string, head = "<title>App</title>") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
const para = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<p>Paragraph ${i}: ospreys nest near water and feed almost entirely on fish, diving feet first to catch them.</p>`,
  ).join("\n");
const NAV = `<header><nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a> <a href="/about">About us</a></nav></header>`;
const FOOTER = `<footer><p>© 2026 Example Corp. All rights reserved. <a href="/privacy">Privacy</a> <a href="/terms">Terms</a></p></footer>`;
const BIG_INLINE = `<script>window.__STATE__=${JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}` })) })}</script>`;

const shells: [string, string][] = [
  [
    "create-react-app root",
    page(`<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>${BUNDLE}`),
  ],
  ["empty #root without noscript", page(`<div id="root"></div>${BUNDLE}`)],
  ["#root with whitespace and a comment", page(`<div id="root">\n  <!-- app mounts here -->\n</div>${BUNDLE}`)],
  ["vue #app", page(`<div id=app></div><script type="module" src="/assets/index.js"></script>`)],
  ["#app with attributes", page(`<div class="wrapper" id="app" data-v-app></div>${BUNDLE}`)],
  [
    "next.js client-only #__next",
    page(`<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{}</script>${BUNDLE}`),
  ],
  ["nuxt #__nuxt", page(`<div id="__nuxt"></div>${BUNDLE}`)],
  ["gatsby", page(`<div id="___gatsby"></div>${BUNDLE}`)],
  [
    "angular app-root",
    page(`<app-root></app-root><script src="runtime.js" type="module"></script><script src="main.js" type="module"></script>`),
  ],
  ["angular app-root with attributes", page(`<app-root ng-version="17.0.0"></app-root>${BUNDLE}`)],
  ["root holding a spinner", page(`<div id="root"><div class="spinner"><span class="dot"></span></div></div>${BUNDLE}`)],
  ["root holding 'Loading…'", page(`<div id="app"><p>Loading…</p></div>${BUNDLE}`)],
  ["empty root between server-rendered chrome", page(`${NAV}<main><div id="root"></div></main>${FOOTER}${BUNDLE}`)],
  [
    "noscript wall with chrome",
    page(`${NAV}<noscript><p>This site requires JavaScript. Please enable JavaScript in your browser.</p></noscript>${BUNDLE}`),
  ],
  ["noscript wall: 'JavaScript is required'", page(`<noscript>JavaScript is required to view this page.</noscript>${BUNDLE}`)],
  [
    "noscript wall: 'turn on JavaScript'",
    page(`<noscript><div class="x">Please turn on JavaScript and reload.</div></noscript>${BUNDLE}`),
  ],
  ["visible 'enable JavaScript' text only", page(`<div class="msg">Please enable JavaScript to continue.</div>${BUNDLE}`)],
  ["script-only body (external)", page(BUNDLE)],
  ["script-only body (inline)", page(`<script>document.write("<h1>Hello</h1>")</script>`)],
  ["tiny text with a big inline payload", page(`<div class="shell">Example</div>${BIG_INLINE}${BUNDLE}`)],
  [
    "tiny text with many bundles",
    page(`<span>Menu</span><script src="a.js"></script><script src="b.js"></script><script src="c.js"></script>`),
  ],
  [
    "noscript meta refresh to a no-JS page",
    page(`${NAV}${BUNDLE}`, `<title>x</title><noscript><meta http-equiv="refresh" content="0; url=/nojs.html"></noscript>`),
  ],
  [
    "meta refresh to a hash-bang route",
    page(`<p>Redirecting</p>${BUNDLE}`, `<meta http-equiv="refresh" content="0;url=/#!/home">`),
  ],
  ["AJAX-crawling fragment meta", page(`${NAV}${BUNDLE}`, `<meta name="fragment" content="!">`)],
  ["svelte-kit body with data-sveltekit", page(`<div style="display: contents" id="svelte"></div>${BUNDLE}`)],
  ["uppercase markup", `<HTML><BODY><DIV ID="ROOT"></DIV><SCRIPT SRC="/app.js"></SCRIPT></BODY></HTML>`],
  ["xhtml content type", page(`<div id="root"></div>${BUNDLE}`)],
];

const normal: [string, string][] = [
  ["an article", page(`${NAV}<article><h1>Ospreys</h1>${para(12)}</article>${FOOTER}<script src="/analytics.js"></script>`)],
  ["a page without scripts at all", page(`<div id="root"></div>`)],
  ["a tiny static page", page(`<p>Hello, world.</p>`)],
  ["a short static page with an analytics noscript pixel", page(`<p>Contact us.</p><noscript><img src="/px.gif"></noscript>`)],
  [
    "server-rendered Next.js (#__next full of text)",
    page(
      `<div id="__next">${NAV}<main>${para(10)}</main>${FOOTER}</div><script id="__NEXT_DATA__" type="application/json">{}</script>${BUNDLE}`,
    ),
  ],
  ["server-rendered #root", page(`<div id="root"><article>${para(8)}</article></div>${BUNDLE}`)],
  [
    "a long article with a 'for the best experience enable JavaScript' noscript",
    page(`<article>${para(20)}</article><noscript>For the best experience, enable JavaScript.</noscript>${BUNDLE}`),
  ],
  [
    "an article with a JSON-LD script only",
    page(`<p>Short note.</p><script type="application/ld+json">{"@type":"Article"}</script>`),
  ],
  [
    "a plain meta refresh redirect page",
    page(`<p>Moved to <a href="/new">/new</a></p>`, `<meta http-equiv="refresh" content="0; url=/new">`),
  ],
  [
    "a forum thread",
    page(
      `${NAV}${Array.from({ length: 15 }, (_, i) => `<div class="post"><b>user${i}</b><p>I saw an osprey at the lake today, it caught a trout.</p></div>`).join("")}${BUNDLE}`,
    ),
  ],
  [
    "a documentation page with code",
    page(`<main><h1>API</h1><pre><code>${"const x = 1;\n".repeat(40)}</code></pre>${para(5)}</main>${BUNDLE}`),
  ],
  ["a product page with an empty widget root", page(`<h1>Trail shoe</h1>${para(20)}<div id="app"></div>${BUNDLE}`)],
  [
    "text that merely mentions JavaScript",
    page(`<article><h1>Why JavaScript is required reading</h1>${para(16)}</article>${BUNDLE}`),
  ],
];

describe("needsRendering", () => {
  it.each(shells)("needs rendering: %s", (_name, html) => {
    expect(needsRendering(html, "text/html; charset=utf-8")).toBe(true);
  });

  it.each(normal)("does not need rendering: %s", (_name, html) => {
    expect(needsRendering(html, "text/html")).toBe(false);
  });

  it("treats a missing content type as HTML and other types as never needing a browser", () => {
    const shell = page(`<div id="root"></div>${BUNDLE}`);
    expect(needsRendering(shell, undefined)).toBe(true);
    expect(needsRendering(shell, "")).toBe(true);
    expect(needsRendering(shell, "application/xhtml+xml")).toBe(true);
    expect(needsRendering(shell, "TEXT/HTML;charset=UTF-8")).toBe(true);
    for (const type of ["application/json", "text/plain", "application/pdf", "text/csv", "image/svg+xml"]) {
      expect(needsRendering(shell, type)).toBe(false);
    }
  });

  it("copes with broken markup: unclosed scripts, comments and tags", () => {
    expect(needsRendering(`<html><body><div id="root"></div><script>var a = "<div>"`, "text/html")).toBe(true);
    expect(needsRendering(`<body><!-- never closed <p>text`, "text/html")).toBe(false);
    expect(needsRendering(`<body><p>${"word ".repeat(400)}<script src=x.js>`, "text/html")).toBe(false);
    expect(needsRendering("", "text/html")).toBe(false);
    expect(needsRendering("a < b and c > d", "text/html")).toBe(false);
  });

  it("does not count script, style, template, svg or title text as visible", () => {
    const hidden = page(
      `<style>${"body{color:red}".repeat(200)}</style><template>${para(20)}</template><svg><text>${"label ".repeat(300)}</text></svg>${BUNDLE}`,
      `<title>${"A very long title ".repeat(50)}</title>`,
    );
    expect(needsRendering(hidden, "text/html")).toBe(true);
  });

  it("is fast on a large page", () => {
    const big = page(`${NAV}<article>${para(5000)}</article>${FOOTER}${BIG_INLINE.repeat(20)}${BUNDLE}`);
    const shell = page(`<div id="root"></div>${BIG_INLINE.repeat(200)}${BUNDLE}`);
    expect(big.length).toBeGreaterThan(500_000);
    expect(shell.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    for (let i = 0; i < 10; i++) {
      expect(needsRendering(big, "text/html")).toBe(false);
      expect(needsRendering(shell, "text/html")).toBe(true);
    }
    // Generous for a shared CI core; typical is well under 1 ms for the text page.
    expect((performance.now() - started) / 10).toBeLessThan(50);
  });
});
