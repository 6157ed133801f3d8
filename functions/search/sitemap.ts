/**
 * Reads the page URLs of a sitemap (sitemaps.org): a <urlset>, or a <sitemapindex> whose child
 * sitemaps are read in turn, depth-first, bounded in depth, in sitemaps read and in URLs kept.
 * Gzipped sitemaps (.xml.gz) are inflated. Every request goes through the caller's HTTP client
 * (the address-policy-enforcing safeFetch), so a sitemap cannot point the crawl at private hosts.
 */
import { gunzipSync } from "node:zlib";
import type { HttpFetch } from "../fetch/ports.ts";
import { removeBetween } from "../lib/markup.ts";

export interface SitemapLimits {
  /** Page URLs kept at most (default 50,000: one sitemap file's own limit). */
  maxUrls?: number;
  /** Sitemap files read at most, the first included (default 100). */
  maxSitemaps?: number;
  /** Levels of sitemap index followed (default 3). */
  maxDepth?: number;
  /** Body limit per sitemap file (default 50 MiB, the protocol's own). */
  maxBodyBytes?: number;
  timeoutMs?: number;
}

export interface SitemapResult {
  urls: string[];
  /** Sitemap files that could not be read, with why. */
  errors: { url: string; error: string }[];
  /** A limit cut the list short. */
  truncated: boolean;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXmlText(s: string): string {
  return s
    .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, "$1")
    .replace(/&(?:#x([0-9a-f]+)|#(\d+)|([a-z]+));/gi, (m, hex: string, dec: string, name: string) => {
      if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
      if (dec) return String.fromCodePoint(Number(dec));
      return ENTITIES[name.toLowerCase()] ?? m;
    })
    .trim();
}

/** The <loc> values of a sitemap document and whether it is a sitemap index. */
export function parseSitemap(xml: string): { index: boolean; locs: string[] } {
  const noComments = removeBetween(xml, "<!--", "-->");
  const index = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(noComments);
  const locs: string[] = [];
  // Each <loc> runs to its first </loc>, found by hand: one lazy regex read to the end of the
  // document from every unclosed <loc> (quadratic in their number). A <loc> with no ">" or no
  // </loc> after it has none after the later ones either: the scan stops there.
  LOC_OPEN.lastIndex = 0;
  for (let m = LOC_OPEN.exec(noComments); m; m = LOC_OPEN.exec(noComments)) {
    const open = noComments.indexOf(">", m.index + m[0].length);
    if (open < 0) break;
    LOC_CLOSE.lastIndex = open + 1;
    const close = LOC_CLOSE.exec(noComments);
    if (!close) break;
    const loc = decodeXmlText(noComments.slice(open + 1, close.index));
    if (loc) locs.push(loc);
    LOC_OPEN.lastIndex = close.index + close[0].length;
  }
  return { index, locs };
}

/** Where a <loc> (or <prefix:loc>) starts, and where one ends. */
const LOC_OPEN = /<(?:[\w-]+:)?loc(?=[\s>])/gi;
const LOC_CLOSE = /<\/(?:[\w-]+:)?loc\s*>/gi;

const isHttp = (s: string, base: string): string | null => {
  try {
    const u = new URL(s, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
};

export async function readSitemap(url: string, http: HttpFetch, limits: SitemapLimits = {}): Promise<SitemapResult> {
  const maxUrls = limits.maxUrls ?? 50_000;
  const maxSitemaps = limits.maxSitemaps ?? 100;
  const maxDepth = limits.maxDepth ?? 3;
  const maxBodyBytes = limits.maxBodyBytes ?? 50 * 1024 * 1024;
  const timeoutMs = limits.timeoutMs ?? 60_000;
  const urls = new Set<string>();
  const errors: SitemapResult["errors"] = [];
  const seen = new Set<string>();
  let truncated = false;

  const visit = async (sitemapUrl: string, depth: number): Promise<void> => {
    if (urls.size >= maxUrls) return;
    if (seen.size >= maxSitemaps) {
      truncated = true;
      return;
    }
    seen.add(sitemapUrl);
    const r = await http(sitemapUrl, {
      headers: { accept: "application/xml, text/xml;q=0.9, */*;q=0.5" },
      signal: AbortSignal.timeout(timeoutMs),
      maxBodyBytes,
    });
    if (!r.ok) return void errors.push({ url: sitemapUrl, error: r.error });
    if (r.status < 200 || r.status > 299) return void errors.push({ url: sitemapUrl, error: `HTTP ${r.status}` });
    let body = r.body;
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        body = gunzipSync(body, { maxOutputLength: maxBodyBytes });
      } catch {
        return void errors.push({ url: sitemapUrl, error: "not a valid gzip file" });
      }
    }
    const { index, locs } = parseSitemap(body.toString("utf8"));
    if (!index && locs.length === 0) return void errors.push({ url: sitemapUrl, error: "no <loc> entries" });
    for (const raw of locs) {
      const loc = isHttp(raw, r.finalUrl);
      if (!loc) continue;
      if (index) {
        if (depth >= maxDepth) {
          truncated = true;
          continue;
        }
        if (!seen.has(loc)) await visit(loc, depth + 1);
      } else if (urls.size >= maxUrls) {
        truncated = true;
        return;
      } else urls.add(loc);
    }
  };

  await visit(url, 0);
  return { urls: [...urls], errors, truncated };
}
