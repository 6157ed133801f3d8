import { normaliseDomain } from "../domains.ts";
import { parseTotp } from "../totp.ts";
import type { TotpSpec } from "./types.ts";

/**
 * What the external providers read the same way from an item, by the rules the built-in vault
 * applies to what an operator types: the domains of its URLs and its one-time-password seed.
 */

/**
 * The distinct domains of an item's URLs, in order: each URL's host (lower-case, punycode, no port;
 * a bare host such as "example.com" is taken as it is). A URL that names no host (androidapp://,
 * a pattern) is left out. No public-suffix list is at hand, so a host is not cut down to its
 * registrable domain: "login.example.com" stays as it is, which can only narrow where the item
 * fills, never widen it.
 */
export function domainsOf(urls: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const raw of urls) {
    const domain = normaliseDomain(raw);
    if (domain) out.add(domain);
  }
  return [...out];
}

/**
 * An item's TOTP seed (an otpauth://totp/ URI or a bare base32 secret) as RFC 6238 parameters, or
 * null when it is none we can generate codes for (an HOTP URI, a Steam code, a short secret): the
 * item then has no usable one-time code. Why it failed is not kept: the message might echo the seed.
 */
export function totpOf(raw: string | null | undefined): TotpSpec | null {
  if (!raw?.trim()) return null;
  try {
    return parseTotp(raw);
  } catch {
    return null;
  }
}
