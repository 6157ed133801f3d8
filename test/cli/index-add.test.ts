import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDataDir } from "../helpers/data-dir.ts";
import { article, html, type Origin, OSPREY_PARAGRAPHS, startOrigin } from "../helpers/origin.ts";
import { type Env, killChildren, runCli } from "../helpers/process.ts";

/**
 * `npx osprey index add` as a real process against pages and sitemaps on a local origin, which
 * OSPREY_ALLOW_PRIVATE_HOSTS exempts from the address policy by port. The runs share one data dir
 * and go in order: the second crawl finds every page unchanged.
 */

const LONG = [...OSPREY_PARAGRAPHS];
const body = LONG.map((p) => `<p>${p}</p>`).join("");
const news = `<!doctype html><html lang="en"><head><title>Osprey numbers soar</title>
<meta property="og:type" content="article"><meta property="og:site_name" content="Daily Osprey">
<meta property="article:published_time" content="2026-11-20T08:30:00Z"></head><body><article><h1>Osprey numbers soar</h1>${body}</article></body></html>`;
const paper = `<!doctype html><html lang="en"><head><title>Diving behaviour</title>
<meta name="citation_title" content="Diving behaviour"><meta name="citation_author" content="Doe, Jane">
<meta name="citation_journal_title" content="J. Raptor Res."><meta name="citation_publication_date" content="2021/05/12"></head>
<body><main><h1>Diving behaviour</h1>${body}</main></body></html>`;
const xml = (s: string) => (_req: unknown, res: import("node:http").ServerResponse) => {
  res.writeHead(200, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${s}`);
};

let origin: Origin;
let dir: { dir: string; cleanup(): void };
let env: Env;
const u = (p: string) => `${origin.url}${p}`;

beforeAll(async () => {
  origin = await startOrigin({
    "/news": html(news),
    "/paper": html(paper),
    "/plain": html(article("Plain page", LONG)),
    "/sitemap-index.xml": xml(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>/pages.xml</loc></sitemap><sitemap><loc>/missing.xml</loc></sitemap></sitemapindex>`,
    ),
    "/pages.xml": (req, res) =>
      xml(
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${u("/plain")}</loc></url><!-- <url><loc>${u("/hidden")}</loc></url> --><url><loc><![CDATA[${u("/news")}]]></loc></url><url><loc>${u("/gone")}?a=1&amp;b=2</loc></url></urlset>`,
      )(req, res),
  });
  dir = migratedDataDir("osprey-index-add-");
  env = { OSPREY_DATA_DIR: dir.dir, OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${origin.port}` };
});
afterAll(async () => {
  await killChildren();
  await origin.close();
  dir.cleanup();
});

const run = (...args: string[]) => runCli(["index", "add", ...args], env, { timeoutMs: 90_000 });

describe("osprey index add", () => {
  it("crawls URLs and a sitemap index through the fetch pipeline, with progress on stderr", async () => {
    const r = await run(u("/news"), u("/paper"), "--sitemap", u("/sitemap-index.xml"), "--concurrency", "2", "--json");
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      total: 4,
      ok: 3,
      failed: 1,
      skipped: 0,
      inserted: 3,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      sitemap_errors: 1,
      upsert_failed: 0,
      failures: [{ url: `${u("/gone")}?a=1&b=2`, error: "page_not_found", status: 404 }],
    });
    expect(r.stderr).toContain(`sitemap ${u("/missing.xml")}: HTTP 404`);
    expect(r.stderr).toContain(`sitemap ${u("/sitemap-index.xml")}: 3 URLs`);
    expect(r.stderr).toMatch(new RegExp(`\\[\\d/4\\] ok ${u("/news")} \\(news\\)`));
    expect(r.stderr).toMatch(new RegExp(`\\[\\d/4\\] ok ${u("/paper")} \\(research_paper\\)`));
    expect(r.stderr).toMatch(new RegExp(`\\[\\d/4\\] ok ${u("/plain")} \\(web\\)`));
    expect(r.stderr).toContain("[4/4]");
    expect(r.stderr).not.toContain("/hidden");
  });

  it("reads --file (comments and blank lines skipped); unchanged pages stay unchanged", async () => {
    const file = path.join(dir.dir, "urls.txt");
    writeFileSync(file, `# pages\n${u("/news")}\n\n${u("/paper")}\n${u("/plain")}\n`);
    const r = await run("--file", file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("Indexed 3 of 3 URLs: 0 new, 0 updated, 3 unchanged, 0 refused; 0 failed, 0 skipped.");
  });

  it("reads --file a line at a time up to --limit; a missing file is a usage error", async () => {
    const file = path.join(dir.dir, "many.txt");
    writeFileSync(
      file,
      `${u("/news")}\n${u("/paper")}\n${Array.from({ length: 50_000 }, (_, i) => u(`/none-${i}`)).join("\n")}\n`,
    );
    const r = await run("--file", file, "--limit", "2", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 2, ok: 2, failed: 0 });
    const missing = await run("--file", path.join(dir.dir, "absent.txt"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("absent.txt: no such file");
  });

  it("keeps the address policy: a host not exempted fails, and nothing indexed exits 1", async () => {
    const r = await run("http://127.0.0.1:1/private", "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ total: 1, ok: 0, failed: 1, failures: [{ error: "invalid_url" }] });
  });

  it("answers usage errors with exit 2", async () => {
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/index add needs URLs, --file or --sitemap/);
    const bad = await run(u("/news"), "--concurrency", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency must be from 1 to 32/);
  });
});
