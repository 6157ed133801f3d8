import { isIPv4 } from "node:net";
import { getDomain } from "tldts";

/**
 * The domains an item may be filled on, as items keep them: lower-case ASCII host names (IDNs in
 * punycode), no scheme, port, path or trailing dot. An operator may type a URL; its host is kept.
 */

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The normalised domain of `input` (a host name or an http(s) URL), or null when it names none. */
export function normaliseDomain(input: string): string | null {
  const v = input.trim();
  if (v === "" || /\s/.test(v)) return null;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(v);
  const asUrl = hasScheme ? v : `http://${v}`;
  if (!URL.canParse(asUrl)) return null;
  const url = new URL(asUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  const host = url.hostname.replace(/\.$/, "");
  if (host.length === 0 || host.length > 253 || host.startsWith("[")) return null;
  if (isIPv4(host)) return host;
  const labels = host.split(".");
  if (!labels.every((l) => LABEL.test(l))) return null;
  if (labels.length === 1) return host === "localhost" ? host : null;
  // A top-level label is never all digits (that would be a mistyped address).
  return /^\d+$/.test(labels.at(-1) ?? "") ? null : host;
}

/**
 * The registrable domain of a host (eTLD+1 under the Public Suffix List, private suffixes
 * included, so `alice.github.io` and `bob.github.io` are different sites); the host itself for an
 * IP address, `localhost` or a name that is itself a public suffix.
 */
export function registrableDomain(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h.startsWith("[") || isIPv4(h)) return h;
  return getDomain(h, { allowPrivateDomains: true }) ?? h;
}

/**
 * Whether a credential whose item lists `domains` may be filled on a page at `url` (spec issue
 * [3 of 6]): the page's registrable domain must be one of the items' registrable domains. An IP
 * address or a single-label host matches only itself. Anything but http(s) never matches.
 */
export function credentialAllowedOn(domains: readonly string[], url: string): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") return false;
  const site = registrableDomain(u.hostname);
  return domains.some((d) => {
    const norm = normaliseDomain(d);
    return norm !== null && registrableDomain(norm) === site;
  });
}
