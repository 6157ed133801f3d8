/**
 * Bot-protection challenges (spec 7.4 `bot_blocked`): Cloudflare, Akamai, PerimeterX, DataDome and
 * CAPTCHA interstitials, recognised by their headers and markup, also when served with a 200.
 */

const HEADER_SIGNS: [string, RegExp][] = [
  ["cf-mitigated", /challenge/i],
  ["x-datadome", /./],
  ["x-px-block", /./],
];

/** Markers specific enough to mean a challenge page wherever they appear. */
const STRONG = [
  /\/cdn-cgi\/challenge-platform\//i,
  /window\._cf_chl_opt/i,
  /cf-browser-verification|cf_chl_/i,
  /captcha-delivery\.com|geo\.captcha-delivery/i,
  /_pxCaptcha|px-captcha|perimeterx/i,
  /errors\.edgesuite\.net/i,
  /<title>\s*(just a moment\.\.\.|attention required! \| cloudflare|access denied|pardon our interruption|are you a robot\?|robot check|security check)\s*<\/title>/i,
];

/** Markers that mean a challenge only on a page with little else on it. */
const WEAK = [
  /class=["'][^"']*\b(g-recaptcha|h-captcha|cf-turnstile)\b/i,
  /verify (that )?you are (a )?human|press (&amp;|&) hold|checking your browser|enable javascript and cookies to continue/i,
  /unusual traffic from your (computer|network)/i,
];

function visibleTextLength(html: string): number {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim().length;
}

export function isBotChallenge(status: number, headers: Record<string, string>, html: string): boolean {
  for (const [name, re] of HEADER_SIGNS) {
    const v = headers[name];
    if (v !== undefined && re.test(v)) return true;
  }
  const head = html.length > 200_000 ? html.slice(0, 200_000) : html;
  if (STRONG.some((re) => re.test(head))) return true;
  if (WEAK.some((re) => re.test(head))) {
    // A real page can embed a CAPTCHA in a form; a challenge interstitial has almost nothing else.
    return visibleTextLength(head) < 1500 || status === 403 || status === 429 || status === 503;
  }
  return false;
}
