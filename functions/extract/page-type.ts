/**
 * Page typing at fetch time (local index): a research paper from scholarly `citation_*` meta tags
 * (Google Scholar's inclusion tags) or a JSON-LD ScholarlyArticle; a news article from
 * og:type=article or a JSON-LD NewsArticle, but only with a publication date and a publisher;
 * anything else is web. Reads the parsed document, so it runs where the extractor parsed the page
 * (the extraction worker), before main-content extraction strips the furniture.
 */
import { jsonLdObjects } from "./metadata.ts";
import { parseDocument } from "./parse.ts";
import type { PageTyping } from "./types.ts";

type Json = Record<string, unknown>;

const clean = (s: unknown): string | undefined => {
  if (typeof s !== "string") return undefined;
  const t = s.replace(/\s+/g, " ").trim();
  return t === "" ? undefined : t;
};

/** Every <meta> name/property → all its contents in document order (citation_author repeats). */
function readMetaAll(document: Document): Map<string, string[]> {
  const meta = new Map<string, string[]>();
  for (const el of document.querySelectorAll("meta")) {
    const content = clean(el.getAttribute("content"));
    if (!content) continue;
    const keys = new Set<string>();
    for (const attr of ["name", "property", "itemprop"]) {
      const key = el.getAttribute(attr)?.trim().toLowerCase();
      if (key) keys.add(key);
    }
    for (const key of keys) {
      const list = meta.get(key);
      if (list) list.push(content);
      else meta.set(key, [content]);
    }
  }
  return meta;
}

const types = (o: Json): string[] => {
  const t = o["@type"];
  return (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === "string").map((x) => x.replace(/^.*[/#:]/, ""));
};

const NEWS_TYPES = new Set([
  "NewsArticle",
  "ReportageNewsArticle",
  "AnalysisNewsArticle",
  "OpinionNewsArticle",
  "BackgroundNewsArticle",
  "ReviewNewsArticle",
  "LiveBlogPosting",
]);
const ARTICLE_TYPES = new Set([...NEWS_TYPES, "Article", "BlogPosting", "Report"]);
const SCHOLARLY_TYPES = new Set(["ScholarlyArticle", "MedicalScholarlyArticle"]);

const nameOf = (v: unknown): string | undefined => {
  if (typeof v === "string") return /^https?:/.test(v) ? undefined : clean(v);
  if (Array.isArray(v)) return nameOf(v[0]);
  if (v && typeof v === "object") return clean((v as Json).name);
  return undefined;
};

const namesOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v ? [v] : []).map(nameOf).filter((n): n is string => n !== undefined);

/** A date's day (YYYY-MM-DD) and year from ISO, "2021/05/12", "2021-5", "2021" or anything Date parses. */
export function parseDay(raw: string | undefined): { date?: string; year?: number } {
  const s = clean(raw);
  if (!s) return {};
  const m = s.match(/^(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?(?![\d])/);
  if (m) {
    const year = Number(m[1]);
    if (!m[2] || !m[3]) return { year };
    const date = `${m[1]}-${m[2].padStart(2, "0")}-${m[3].padStart(2, "0")}`;
    return Number.isNaN(Date.parse(date)) ? { year } : { date, year };
  }
  const t = new Date(s);
  if (Number.isNaN(t.getTime())) return {};
  // "March 3, 2020" parses as local midnight: the local components are the stated day.
  const pad = (n: number) => String(n).padStart(2, "0");
  return { date: `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}`, year: t.getFullYear() };
}

const absolute = (href: string | undefined, base: string): string | undefined => {
  if (!href) return undefined;
  try {
    const u = new URL(href, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
};

const defined = (o: PageTyping): PageTyping =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))) as PageTyping;

function scholarly(meta: Map<string, string[]>, ld: Json[], url: string, siteName?: string): PageTyping | null {
  const first = (k: string) => meta.get(k)?.[0];
  const title = first("citation_title");
  const authors = meta.get("citation_author") ?? meta.get("citation_authors")?.flatMap((a) => a.split(";")) ?? [];
  const venue =
    first("citation_journal_title") ??
    first("citation_conference_title") ??
    first("citation_inbook_title") ??
    first("citation_publisher");
  const day = parseDay(first("citation_publication_date") ?? first("citation_date") ?? first("citation_online_date"));
  if (title && (authors.length > 0 || venue || day.year)) {
    return defined({
      type: "research_paper",
      authors: authors.map((a) => clean(a)).filter((a): a is string => a !== undefined),
      venue,
      year: day.year,
      publishedDate: day.date,
      publisher: first("citation_publisher") ?? first("dc.publisher"),
      pdfUrl: absolute(first("citation_pdf_url"), url),
      siteName,
    });
  }
  const paper = ld.find((o) => types(o).some((t) => SCHOLARLY_TYPES.has(t)));
  if (!paper) return null;
  const pday = parseDay(clean(paper.datePublished));
  return defined({
    type: "research_paper",
    authors: namesOf(paper.author),
    venue: nameOf(paper.isPartOf),
    year: pday.year,
    publishedDate: pday.date,
    publisher: nameOf(paper.publisher),
    siteName,
  });
}

/** Types a page from its parsed document (or its HTML) and final URL. */
export function classifyPage(page: Document | string, url: string): PageTyping {
  const document = typeof page === "string" ? parseDocument(page) : page;
  const meta = readMetaAll(document);
  const ld = jsonLdObjects(document);
  const first = (k: string) => meta.get(k)?.[0];
  const siteName = first("og:site_name") ?? first("application-name");

  const paper = scholarly(meta, ld, url, siteName);
  if (paper) return paper;

  const ldArticle =
    ld.find((o) => types(o).some((t) => NEWS_TYPES.has(t))) ??
    (first("og:type")?.toLowerCase() === "article" ? ld.find((o) => types(o).some((t) => ARTICLE_TYPES.has(t))) : undefined);
  const isNews = ldArticle !== undefined || first("og:type")?.toLowerCase() === "article";
  if (isNews) {
    const day = parseDay(first("article:published_time") ?? first("og:published_time") ?? clean(ldArticle?.datePublished));
    const publisher = nameOf(ldArticle?.publisher) ?? siteName;
    if (day.date && publisher) {
      return defined({
        type: "news",
        publishedDate: day.date,
        publisher,
        authors:
          namesOf(ldArticle?.author).length > 0
            ? namesOf(ldArticle?.author)
            : (meta.get("article:author") ?? []).filter((a) => !/^https?:/.test(a)),
        siteName,
      });
    }
  }
  return defined({ type: "web", siteName });
}
