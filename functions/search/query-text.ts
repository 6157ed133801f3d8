/**
 * Domain lists and the deprecated `site:` operators of a search query (spec 4.7, 9.3).
 *
 * `site:host` and `-site:host` (any case, the host bare or in double quotes) are taken out of the
 * query text and merged into include_domains / exclude_domains; the text that remains, with its
 * whitespace collapsed, is the executed query (the response's `query`).
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A domain filter entry as a lower-case ASCII host, or null when it is not a host name. A leading
 * `*.` or `.` and a trailing dot are accepted and dropped; internationalised names become punycode.
 */
export function normaliseDomain(value: string): string | null {
  let host = value.trim().toLowerCase();
  if (host.startsWith("*.")) host = host.slice(2);
  else if (host.startsWith(".")) host = host.slice(1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253 || /[\s/:?#@\\[\]%]/.test(host)) return null;
  if ([...host].some((ch) => (ch.codePointAt(0) ?? 0) > 0x7f)) {
    try {
      host = new URL(`http://${host}/`).hostname;
    } catch {
      return null;
    }
  }
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  return TLD.test(labels[labels.length - 1] ?? "") ? host : null;
}

/** Whether `host` is `domain` or one of its subdomains. */
export function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

export interface SiteOperators {
  /** The query without its operators, whitespace collapsed. */
  text: string;
  include: string[];
  exclude: string[];
  /** Operator values that are not host names. */
  invalid: string[];
}

const OPERATOR = /(^|\s)(-?)site:(?:"([^"]*)"|(\S*))/gi;

export function parseSiteOperators(query: string): SiteOperators {
  const include: string[] = [];
  const exclude: string[] = [];
  const invalid: string[] = [];
  const text = query.replace(OPERATOR, (_m, lead: string, minus: string, quoted?: string, bare?: string) => {
    const raw = quoted ?? bare ?? "";
    const host = normaliseDomain(raw.replace(/^https?:\/\//i, "").replace(/\/.*$/, ""));
    if (host === null) invalid.push(raw);
    else (minus ? exclude : include).push(host);
    return lead;
  });
  return { text: text.replace(/\s+/g, " ").trim(), include, exclude, invalid };
}

/** Unique, in first-seen order. */
export const unique = (list: string[]): string[] => [...new Set(list)];
