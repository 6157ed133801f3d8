/**
 * What a Browser Context Profile keeps of a browser (issue [4 of 6], spec 2.3): per registrable
 * domain, its cookies with every attribute Chromium has (partitioned ones included) and the
 * localStorage of each origin under it. Stored sealed with the vault's keyring, one row per
 * domain, so runs that touch different sites never overwrite each other. IndexedDB, Cache Storage
 * and service workers are not kept.
 */

export type CookieSameSite = "Strict" | "Lax" | "None";

/** A cookie as CDP's Network.Cookie / Storage.setCookies carries it (the attributes a site can set). */
export interface ProfileCookie {
  name: string;
  value: string;
  /** As Chromium reports it: a leading dot for a domain cookie, none for a host-only one. */
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 (or absent) for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: CookieSameSite;
  priority?: "Low" | "Medium" | "High";
  sourceScheme?: "Unset" | "NonSecure" | "Secure";
  sourcePort?: number;
  /** CHIPS: the top-level site the cookie is partitioned under. */
  partitionKey?: { topLevelSite: string; hasCrossSiteAncestor: boolean };
}

/** localStorage of one origin (scheme://host[:port]). */
export interface OriginStorage {
  origin: string;
  /** [key, value] pairs in the browser's order. */
  items: [string, string][];
}

/** Everything kept for one registrable domain. */
export interface DomainState {
  /** The registrable domain (functions/vault/domains.ts registrableDomain), e.g. example.co.uk. */
  domain: string;
  cookies: ProfileCookie[];
  localStorage: OriginStorage[];
}
