/**
 * Bot-protection challenges (spec 7.4 `bot_blocked`): Cloudflare, Akamai, PerimeterX, DataDome and
 * CAPTCHA interstitials, recognised by their headers and markup, also when served with a 200.
 *
 * A false positive loses a readable page, so markers are split by what they prove. The scripts
 * protection vendors put on every page they guard (Cloudflare's `/cdn-cgi/challenge-platform/
 * scripts/jsd/` beacon, PerimeterX's sensor, reCAPTCHA on a contact form) prove nothing; only
 * what a challenge page itself carries does (Cloudflare's orchestrate script and `_cf_chl_opt`,
 * a captcha frame, an Akamai reference, a challenge title), or a CAPTCHA widget on a page that is
 * little else. Every readable page of the extraction benchmarks is checked against this
 * (test/fetch/bot-challenge.test.ts). Substring searches first, regular expressions only where
 * one hit: this runs on every HTML page.
 */
import { elementSpans, replaceTags } from "../lib/markup.ts";

const HEADER_SIGNS: [string, RegExp][] = [
  ["cf-mitigated", /challenge/i],
  ["x-datadome", /./],
  ["x-px-block", /./],
];

/** Markup only challenge pages carry (vendors write it in lower case). */
const STRONG = [
  "window._cf_chl_opt",
  "__cf_chl_",
  "cf-browser-verification",
  "captcha-delivery.com",
  "errors.edgesuite.net",
  "errors&#46;edgesuite&#46;net",
];
/** Cloudflare's challenge script; the same folder also serves the beacon every guarded page loads. */
const CF_ORCHESTRATE = /\/cdn-cgi\/challenge-platform\/(?:h\/[a-z]\/)?orchestrate\//;
/** PerimeterX's challenge mounts here (guarded pages style the id in advance, so CSS is no sign). */
const PX_CAPTCHA = /\bid=["']?px-captcha["'\s>]/;
const TITLE = /<title\b[^>]*>([^<]{0,200})<\/title>/i;
const CHALLENGE_TITLE =
  /^(just a moment\.\.\.|access to this page has been denied\.?|attention required! \| cloudflare|access denied|pardon our interruption|are you a robot\?|robot check|security check)$/i;

/** What a challenge asks of the visitor: a challenge when the page has little else to read. */
const PHRASE =
  /verify (?:that )?you are (?:a )?human|press (?:&amp;|&) hold|checking your browser|enable javascript and cookies to continue|unusual traffic from your (?:computer|network)/i;
const WIDGET = /class=["'][^"']*\b(g-recaptcha|h-captcha|cf-turnstile)\b/;
/** Visible characters below which a page with a challenge phrase is the challenge itself. */
const PHRASE_PAGE_TEXT = 1500;
/** A CAPTCHA widget alone, served as a success: a challenge only on a page with next to no text. */
const WIDGET_PAGE_TEXT = 200;
const BLOCK_STATUS = new Set([403, 429, 503]);

/** Elements whose content is not text a reader sees. */
const HIDDEN_OPEN = /<(script|style|noscript|template)\b/gi;

function visibleTextLength(html: string): number {
  // In one pass each (lib/markup.ts): the regex forms were quadratic in the unclosed tags.
  let shown = "";
  let last = 0;
  for (const [start, end] of elementSpans(html, HIDDEN_OPEN, (name) => new RegExp(`</${name}>`, "gi"))) {
    shown += `${html.slice(last, start)} `;
    last = end;
  }
  return replaceTags(shown + html.slice(last), " ", true)
    .replace(/\s+/g, " ")
    .trim().length;
}

/** The characters of a page's HTML the check reads (a challenge page says what it is early). */
export const CHALLENGE_HEAD_CHARS = 200_000;

export function isBotChallenge(status: number, headers: Record<string, string>, html: string): boolean {
  for (const [name, re] of HEADER_SIGNS) {
    const v = headers[name];
    if (v !== undefined && re.test(v)) return true;
  }
  const head = html.length > CHALLENGE_HEAD_CHARS ? html.slice(0, CHALLENGE_HEAD_CHARS) : html;
  if (STRONG.some((m) => head.includes(m))) return true;
  if (head.includes("/cdn-cgi/challenge-platform/") && CF_ORCHESTRATE.test(head)) return true;
  if (head.includes("px-captcha") && PX_CAPTCHA.test(head)) return true;
  const title = TITLE.exec(head)?.[1]?.replace(/\s+/g, " ").trim() ?? "";
  if (CHALLENGE_TITLE.test(title)) return true;
  const phrase = PHRASE.test(head);
  const widget =
    (head.includes("g-recaptcha") || head.includes("h-captcha") || head.includes("cf-turnstile")) && WIDGET.test(head);
  if (!phrase && !widget) return false;
  // A blocking status with a challenge's words or widget is the challenge.
  if (BLOCK_STATUS.has(status)) return true;
  // A real page can hold a CAPTCHA in a form or quote such words; an interstitial has little else.
  const visible = visibleTextLength(head);
  return phrase ? visible < PHRASE_PAGE_TEXT : visible < WIDGET_PAGE_TEXT;
}
