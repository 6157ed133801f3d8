/**
 * Decides whether a fetched HTML page needs a browser: its content is written by scripts, so the
 * fast path would extract nothing (or a "please enable JavaScript" wall).
 *
 * It runs on every HTML page, so it is one lightweight pass over the markup (no DOM): it measures
 * the visible text (outside script, style, noscript, template, svg and title), the script payload,
 * and what the noscript blocks say, and stops as soon as the page has enough text to be a normal
 * server-rendered page. A page without executable scripts never needs rendering: a browser would
 * show the same thing.
 */
import { replaceTags } from "../lib/markup.ts";

/** Below this many visible (non-space) characters a page is treated as an empty shell. */
const TINY_TEXT = 200;
/** From this many visible characters on, a page is server-rendered whatever else it contains. */
const ENOUGH_TEXT = 1500;
/** Inline script bytes that, with almost no text, make a body "script only". */
const LARGE_INLINE_SCRIPT = 5000;

// One token: a comment, a raw-text element with its content, or any other tag. Text lies between.
const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<(script|style|noscript|template|svg|title|textarea)\b([^>]*)>([\s\S]*?)(?:<\/\1\s*>|$)|<[!/?a-zA-Z][^>]*>?/gi;

const NON_SPACE = /[^\s\u00a0]/g;

/** `type` values that run as script; others (JSON, templates, ld+json) are data. */
const EXECUTABLE_TYPE = /^\s*(?:(?:text|application)\/(?:x-)?(?:java|ecma)script|module|text\/babel|text\/jsx)?\s*$/i;

const APP_ROOT_IDS =
  "root|app|__next|__nuxt|___gatsby|svelte|q-app|react-root|react-app|app-root|main-app|application|spa-root|vue-app|ember-app|mount";

/** An app root element with nothing inside but whitespace and comments. */
const EMPTY_APP_ROOT = new RegExp(
  `<(div|main|section|span)\\b[^>]*\\bid\\s*=\\s*["']?(?:${APP_ROOT_IDS})["'\\s>][^>]*>(?:\\s|<!--[\\s\\S]*?-->)*<\\/\\1\\s*>` +
    "|<(app-root|ng-app)\\b[^>]*>(?:\\s|<!--[\\s\\S]*?-->)*<\\/\\2\\s*>",
  "i",
);

/** Any app root marker (the root may hold a spinner or a skeleton). */
const APP_ROOT_MARKER = new RegExp(
  `\\bid\\s*=\\s*["']?(?:${APP_ROOT_IDS})["'\\s>]|<app-root\\b|\\bng-app\\b|\\bdata-server-rendered\\s*=\\s*["']?false`,
  "i",
);

/** What a "this site needs JavaScript" wall says. */
const JS_REQUIRED =
  /\b(?:enable|turn on|activate|allow)\s+(?:your\s+)?javascript\b|\bjavascript\s+(?:is\s+|must\s+be\s+|needs\s+to\s+be\s+)?(?:required|disabled|enabled|turned off|not enabled|needed)\b|\b(?:requires?|needs?)\s+(?:the\s+use\s+of\s+)?javascript\b|\bjavascript\s+to\s+(?:run|view|use|function|work|continue|display)\b|\bwithout\s+javascript\b/i;

const META_REFRESH = /<meta\b[^>]*http-equiv\s*=\s*["']?refresh["']?[^>]*>/gi;
/** A refresh target only a client-side router can serve (hash-bang or hash routes). */
const HASH_ROUTE_TARGET = /url\s*=\s*['"]?[^'">\s]*#[!/]/i;
/** The old AJAX-crawling opt-in: the page is a script shell. */
const FRAGMENT_META = /<meta\b[^>]*name\s*=\s*["']?fragment["']?[^>]*content\s*=\s*["']?!/i;

const HTML_TYPES = /^\s*(?:text\/html|application\/xhtml\+xml)\s*(?:;|$)/i;

interface Scan {
  textLength: number;
  visibleSample: string;
  executableScripts: number;
  externalScripts: number;
  inlineScriptBytes: number;
  noscript: string;
}

const countNonSpace = (s: string): number => s.match(NON_SPACE)?.length ?? 0;

const typeAttr = (attrs: string): string => /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attrs)?.[1] ?? "";

/** One pass over the markup; stops early (textLength ≥ ENOUGH_TEXT) on text-rich pages. */
function scan(html: string): Scan {
  const s: Scan = {
    textLength: 0,
    visibleSample: "",
    executableScripts: 0,
    externalScripts: 0,
    inlineScriptBytes: 0,
    noscript: "",
  };
  const addText = (text: string) => {
    const n = countNonSpace(text);
    if (n === 0) return;
    s.textLength += n;
    if (s.visibleSample.length < 2000) s.visibleSample += ` ${text}`;
  };
  TOKEN.lastIndex = 0;
  let last = 0;
  for (let m = TOKEN.exec(html); m !== null; m = TOKEN.exec(html)) {
    if (m.index > last) addText(html.slice(last, m.index));
    last = TOKEN.lastIndex;
    if (m[0].length === 0) TOKEN.lastIndex++;
    const raw = m[1]?.toLowerCase();
    if (raw === "script") {
      const attrs = m[2] ?? "";
      if (EXECUTABLE_TYPE.test(typeAttr(attrs))) {
        s.executableScripts++;
        if (/\bsrc\s*=/i.test(attrs)) s.externalScripts++;
        else s.inlineScriptBytes += (m[3] ?? "").length;
      }
    } else if (raw === "noscript") {
      // At most 4,000 characters in all: the check strips their tags, and one huge block would
      // cost that pass as much as the page.
      if (s.noscript.length < 4000) s.noscript += ` ${(m[3] ?? "").slice(0, 4000)}`;
    } else if (raw === "textarea") {
      addText(m[3] ?? "");
    }
    if (s.textLength >= ENOUGH_TEXT) return s;
  }
  if (last < html.length) addText(html.slice(last));
  return s;
}

/** Text of a markup fragment, tags dropped (for the noscript check). */
const stripTags = (html: string): string => replaceTags(html, " ");

/**
 * True when the page's content needs scripts to appear: an empty app root, a noscript wall, a
 * script-only body, or a meta refresh that sends script-less clients away from a script shell.
 */
export function needsRendering(html: string, contentType: string | undefined): boolean {
  if (contentType !== undefined && contentType.trim() !== "" && !HTML_TYPES.test(contentType)) return false;
  const s = scan(html);
  if (s.textLength >= ENOUGH_TEXT || s.executableScripts === 0) return false;

  // An app root left empty for the client to fill; the rest of the page is chrome at most.
  if (EMPTY_APP_ROOT.test(html)) return true;
  if (s.textLength < TINY_TEXT && APP_ROOT_MARKER.test(html)) return true;

  // A noscript wall, or visible text that is nothing but such a wall.
  if (JS_REQUIRED.test(stripTags(s.noscript))) return true;
  if (s.textLength < TINY_TEXT && JS_REQUIRED.test(s.visibleSample)) return true;

  // Script-only body: (almost) no text, the page is made by its scripts.
  if (s.textLength < 50) return true;
  if (s.textLength < TINY_TEXT && (s.externalScripts >= 3 || s.inlineScriptBytes >= LARGE_INLINE_SCRIPT)) return true;

  // Meta refresh to a script shell: inside noscript (script-less clients are sent away), or to a
  // hash route; and the AJAX-crawling `fragment` opt-in.
  if (/<meta\b[^>]*http-equiv\s*=\s*["']?refresh/i.test(s.noscript)) return true;
  for (const meta of html.matchAll(META_REFRESH)) if (HASH_ROUTE_TARGET.test(meta[0])) return true;
  if (FRAGMENT_META.test(html)) return true;
  return false;
}

/**
 * True when the page is HTML with a script that runs (what a browser could change): a page whose
 * markup yields no main content is rendered once more only then (fetch-html.ts).
 */
export function runsScripts(html: string, contentType: string | undefined): boolean {
  if (contentType !== undefined && contentType.trim() !== "" && !HTML_TYPES.test(contentType)) return false;
  return scan(html).executableScripts > 0;
}
