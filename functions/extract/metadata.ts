/**
 * Page-level metadata (spec 2.5), always read from the whole document: title, description,
 * author, published date and language. Each field is null when the page does not state it.
 */

import { trimEndWhere } from "../lib/trim.ts";
import { detectLanguage, normalizeLanguage } from "./language.ts";
import type { PageMetadata } from "./types.ts";

type Meta = Map<string, string>;

/** Collects <meta> name/property/itemprop/http-equiv → content (first occurrence wins). */
function readMeta(document: Document): Meta {
  const meta: Meta = new Map();
  for (const el of document.querySelectorAll("meta")) {
    const content = el.getAttribute("content")?.trim();
    if (!content) continue;
    for (const attr of ["property", "name", "itemprop", "http-equiv"]) {
      const key = el.getAttribute(attr)?.trim().toLowerCase();
      if (key && !meta.has(key)) meta.set(key, content);
    }
  }
  return meta;
}

type Json = Record<string, unknown>;
const ARTICLE_TYPES =
  /Article|Posting|Report|BlogPosting|WebPage|Product|Recipe|QAPage|Question|DiscussionForum|Review|Event|Course/i;

/**
 * The page's JSON-LD objects that have an @type, in document order, flattened from arrays, @graph
 * and mainEntity (to a bounded depth). Malformed blocks are skipped.
 */
export function jsonLdObjects(document: Document): Json[] {
  const out: Json[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 5 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else {
      const o = v as Json;
      if (o["@type"]) out.push(o);
      if (o["@graph"]) visit(o["@graph"], depth + 1);
      if (o.mainEntity && typeof o.mainEntity === "object") visit(o.mainEntity, depth + 1);
    }
  };
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      visit(JSON.parse((s.textContent ?? "").replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, "")), 0);
    } catch {
      // Malformed JSON-LD is common and simply ignored.
    }
  }
  return out;
}

/** The JSON-LD objects, article-like ones first. */
function readJsonLd(document: Document): Json[] {
  const out = jsonLdObjects(document);
  const typeOf = (o: Json) => String(o["@type"]);
  return out.sort((a, b) => Number(ARTICLE_TYPES.test(typeOf(b))) - Number(ARTICLE_TYPES.test(typeOf(a))));
}

const clean = (s: string | null | undefined): string | null => {
  const t = s?.replace(/\s+/g, " ").trim();
  return t ? t : null;
};

function ldString(objects: Json[], key: string, skip = /^(WebSite|Organization|BreadcrumbList|ImageObject)$/): string | null {
  for (const o of objects) {
    if (skip.test(String(o["@type"]))) continue;
    const v = o[key];
    if (typeof v === "string" && clean(v)) return clean(v);
  }
  return null;
}

/** Drops a trailing or leading site name ("Story | Site", "Site - Story"). */
function trimSiteName(title: string, siteName: string | null, h1: string | null, generic: boolean): string {
  const seps = [...title.matchAll(/\s+(?:[|\-–—:·•»/]|::)\s+/g)];
  const first = seps[0];
  const last = seps.at(-1);
  if (!first || !last) return title;
  const lower = title.toLowerCase();
  // The page's own headline followed by a separator: what follows is the site's name or tagline.
  const heading = h1?.toLowerCase();
  if (heading && heading.length >= 3) {
    for (const sep of seps) if (lower.slice(0, sep.index) === heading) return title.slice(0, sep.index);
  }
  const tail = lower.slice(last.index + last[0].length);
  const head = lower.slice(0, first.index);
  const site = siteName?.toLowerCase();
  if (site) {
    if (tail === site || site.includes(tail) || tail.includes(site)) return title.slice(0, last.index).trim();
    if (head === site || site.includes(head)) return title.slice(first.index + first[0].length).trim();
  }
  const before = title.slice(0, last.index).trim();
  // A short part after a pipe is a site name even without og:site_name.
  if (last[0].trim() === "|" && tail.split(/\s+/).length <= 4 && before.length >= 3) return before;
  // ":" usually belongs to the story title itself ("Review: X"), not to a site suffix.
  if (!generic || last[0].trim() === ":") return title;
  return before.split(/\s+/).length >= 3 ? before : title;
}

function findTitle(document: Document, meta: Meta, ld: Json[]): string | null {
  const siteName = clean(meta.get("og:site_name") ?? meta.get("application-name") ?? null);
  const h1 = clean(document.querySelector("h1")?.textContent);
  const og = clean(meta.get("og:title") ?? meta.get("twitter:title") ?? null) ?? ldString(ld, "headline");
  if (og) return trimSiteName(og, siteName, h1, false);
  const tag = clean(document.querySelector("title")?.textContent);
  if (tag) return trimSiteName(tag, siteName, h1, true);
  return h1;
}

function ldAuthor(ld: Json[]): string | null {
  for (const o of ld) {
    const a = o.author ?? o.creator;
    const list = Array.isArray(a) ? a : a ? [a] : [];
    const names = list
      .map((x) => (typeof x === "string" ? x : typeof x === "object" && x ? (x as Json).name : null))
      .filter((n): n is string => typeof n === "string" && clean(n) !== null && !/^https?:/.test(n));
    if (names.length > 0) return names.map((n) => clean(n)).join(", ");
  }
  return null;
}

const BYLINE_SELECTORS =
  '[rel="author"], [itemprop="author"] [itemprop="name"], [itemprop="author"], .byline .author, .author-name, .byline, .author, [class*="author-name"]';

/** What may trail a byline ("By Ann Lee |", "Ann Lee, "): one character of it. */
const BYLINE_TAIL = /[\s—–|,:;-]/;

function cleanByline(s: string | null | undefined): string | null {
  const lead = clean(s)?.replace(/^(by|posted by|written by|von|par|por)\s*:?\s+/i, "");
  const t = lead === undefined ? undefined : trimEndWhere(lead, (c) => BYLINE_TAIL.test(c)).trim();
  if (!t || t.length > 100 || /^https?:/.test(t)) return null;
  return t;
}

function findAuthor(document: Document, meta: Meta, ld: Json[]): string | null {
  for (const key of ["author", "article:author", "dc.creator", "dc.creator.author", "sailthru.author", "parsely-author", "byl"]) {
    const v = cleanByline(meta.get(key));
    if (v) return v;
  }
  const fromLd = ldAuthor(ld);
  if (fromLd) return fromLd;
  for (const el of document.querySelectorAll(BYLINE_SELECTORS)) {
    const v = cleanByline(el.textContent);
    if (v && v.split(/\s+/).length <= 8) return v;
  }
  return null;
}

const DATE_KEYS = [
  "article:published_time",
  "og:published_time",
  "datepublished",
  "publishdate",
  "publish-date",
  "pubdate",
  "date",
  "dc.date.issued",
  "dc.date",
  "dcterms.created",
  "dcterms.date",
  "sailthru.date",
  "parsely-pub-date",
  "article.published",
  "cxenseparse:recs:publishtime",
];

/** ISO 8601 when parseable: date-only and full ISO strings are kept as given, others converted. */
export function normalizeDate(raw: string | null | undefined): string | null {
  const s = clean(raw);
  if (!s) return null;
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return s.replace(" ", "T");
  const t = Date.parse(s);
  if (Number.isNaN(t)) return /\d{4}/.test(s) && s.length <= 40 ? s : null;
  return new Date(t).toISOString();
}

function findDate(document: Document, meta: Meta, ld: Json[]): string | null {
  const first = meta.get("article:published_time") ?? meta.get("og:published_time") ?? ldString(ld, "datePublished");
  if (first) return normalizeDate(first);
  for (const key of DATE_KEYS) {
    const v = normalizeDate(meta.get(key));
    if (v) return v;
  }
  const created = ldString(ld, "dateCreated");
  if (created) return normalizeDate(created);
  const time =
    document.querySelector('[itemprop="datePublished"]') ??
    document.querySelector("article time[datetime], main time[datetime]") ??
    document.querySelector("time[datetime]");
  return normalizeDate(time?.getAttribute("datetime") ?? time?.getAttribute("content") ?? null);
}

/** Reads every metadata field; `text` (the main content) feeds language detection as a last resort. */
export function extractMetadata(document: Document, text?: string): PageMetadata {
  const meta = readMeta(document);
  const ld = readJsonLd(document);
  const declared =
    normalizeLanguage(document.documentElement?.getAttribute("lang")) ??
    normalizeLanguage(document.documentElement?.getAttribute("xml:lang")) ??
    normalizeLanguage(meta.get("og:locale")) ??
    normalizeLanguage(meta.get("content-language")) ??
    normalizeLanguage(meta.get("language")) ??
    normalizeLanguage(ldString(ld, "inLanguage"));
  return {
    title: findTitle(document, meta, ld),
    description: clean(meta.get("og:description") ?? meta.get("description") ?? meta.get("twitter:description") ?? null),
    author: findAuthor(document, meta, ld),
    publishedDate: findDate(document, meta, ld),
    language: declared ?? (text ? detectLanguage(text) : null),
  };
}
