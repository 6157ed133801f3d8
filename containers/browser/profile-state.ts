import type { BrowserContext, Protocol } from "puppeteer-core";
import type { DomainState, OriginStorage, ProfileCookie } from "../../functions/profiles/profile-state.ts";
import { registrableDomain } from "../../functions/vault/domains.ts";
import { agentFor, type ContextAgent } from "./profile-agent.ts";
import {
  asStored,
  capItems,
  cookieHost,
  fromCdpCookie,
  groupByDomain,
  httpOrigin,
  isExpired,
  MAX_COOKIES_PER_DOMAIN,
  MAX_COOKIES_TOTAL,
  type StorageItems,
  toCookieParam,
} from "./profile-data.ts";

export { changedDomains, MAX_COOKIES_PER_DOMAIN, MAX_COOKIES_TOTAL, MAX_STORAGE_BYTES_PER_ORIGIN } from "./profile-data.ts";

/**
 * The browser side of Browser Context Profiles (issue [4 of 6]): load a saved state into a browser
 * context before its first navigation, watch which sites the context visits, read the state back
 * and tell which domains changed. Works on any puppeteer BrowserContext: a run's incognito context
 * (RunSession.context) or a remote session's default context.
 *
 * What is kept: every cookie Chromium has for the context (session cookies too: a profile is a
 * persistent login, and many sites keep theirs in a session cookie; partitioned CHIPS cookies with
 * their partition key; not cookies partitioned under an opaque site, which cannot be set again), and
 * first-party localStorage per origin. Not kept: localStorage of cross-site frames (partitioned
 * under the top-level site), sessionStorage, IndexedDB, Cache Storage, service workers.
 *
 * How cookies are loaded: per registrable domain in the background, each request to a site of the
 * profile held until that site's cookies are in (profile-cookie-fill.ts), so loading costs a context
 * a few milliseconds whatever the profile's size. Read with Storage.getCookies.
 *
 * How localStorage is loaded and read: see profile-agent.ts and profile-reader.ts. In short, loaded
 * lazily by a script in an isolated world on the first first-party document of each origin, before
 * the site's scripts; read from a frame open on the origin, else (an origin the context opened
 * first-party and left) through a hidden page of the context navigated to the origin without
 * touching the network, else kept as loaded (an origin the context never opened first-party still
 * holds the profile's items, untouched).
 *
 * Values are never logged, and no error message here carries one.
 */

/** What a context was given: the baseline `changedDomains` compares a later read with. */
export interface AppliedProfile {
  /**
   * The state the context starts with, per registrable domain: the cookies as Chromium holds them
   * once set (domain lower-cased, expiry capped at 400 days) and the localStorage queued per origin
   * (both after the caps).
   */
  domains: DomainState[];
  /** Cookies queued. */
  cookies: number;
  /** Origins whose localStorage is queued. */
  origins: number;
  skipped: {
    /** Expired by now: never set. */
    expiredCookies: number;
    /** Beyond MAX_COOKIES_PER_DOMAIN or MAX_COOKIES_TOTAL. */
    cookiesOverCap: number;
    /** localStorage items beyond MAX_STORAGE_BYTES_PER_ORIGIN. */
    storageItemsOverCap: number;
  };
  /**
   * Resolves once every cookie is in the browser (meanwhile each request to a site of the profile
   * waits for that site's cookies), with how many Chromium refused (malformed, a partitioned cookie
   * that is not Secure, …; they stay in `domains`, so the next save of their domain drops them).
   * Never rejects.
   */
  cookiesIn: Promise<{ refusedCookies: number }>;
}

/** The registrable domains and origins of the documents a context's frames committed. */
export interface VisitWatcher {
  /** Registrable domains, in the order first seen. */
  domains(): string[];
  /** http(s) origins, in the order first seen (to read localStorage back from). */
  origins(): string[];
  /** Stops recording (what was recorded stays). */
  stop(): void;
}

/** The context (or its browser) is gone: nothing could be read or loaded. Carries no state value. */
export class ProfileStateError extends Error {
  override name = "ProfileStateError";
}

const reason = (err: unknown): string => ((err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "").slice(0, 200);

async function agentOrFail(context: BrowserContext, what: string): Promise<ContextAgent> {
  if (context.closed) throw new ProfileStateError(`${what}: the browser context is closed`);
  try {
    return await agentFor(context);
  } catch (err) {
    throw new ProfileStateError(`${what}: the browser context could not be attached (${reason(err)})`, { cause: err });
  }
}

const contextParam = (agent: ContextAgent) => (agent.context.id === undefined ? {} : { browserContextId: agent.context.id });

async function getCookies(agent: ContextAgent): Promise<ProfileCookie[]> {
  const { cookies } = await agent.browserSession.send("Storage.getCookies", contextParam(agent));
  return cookies.map(fromCdpCookie).filter((c): c is ProfileCookie => c !== null);
}

/**
 * Loads `domains` into `context`, meant for a context no page has navigated yet: cookies with every
 * attribute (partitioned ones included; expired ones skipped), put in per registrable domain in the
 * background while each request to a site of the profile waits for that site's cookies
 * (profile-cookie-fill.ts); localStorage queued per origin for its first document
 * (profile-agent.ts). Resolves once every open page of the context holds its requests and has the
 * loader, so a navigation from then on sees the whole state.
 */
export async function applyProfileState(context: BrowserContext, domains: DomainState[]): Promise<AppliedProfile> {
  const agent = await agentOrFail(context, "the profile could not be loaded");
  const now = Date.now() / 1000;
  const skipped = { expiredCookies: 0, cookiesOverCap: 0, storageItemsOverCap: 0 };

  const byDomain = new Map<string, Protocol.Network.CookieParam[]>();
  const kept: ProfileCookie[] = [];
  for (const d of domains) {
    for (const c of d.cookies) {
      if (isExpired(c, now)) {
        skipped.expiredCookies++;
        continue;
      }
      const site = registrableDomain(cookieHost(c.domain));
      const list = byDomain.get(site) ?? [];
      if (list.length >= MAX_COOKIES_PER_DOMAIN || kept.length >= MAX_COOKIES_TOTAL) {
        skipped.cookiesOverCap++;
        continue;
      }
      list.push(toCookieParam(c));
      byDomain.set(site, list);
      kept.push(asStored(c, now));
    }
  }
  const storage: OriginStorage[] = [];
  for (const d of domains) {
    for (const s of d.localStorage) {
      const origin = httpOrigin(s.origin);
      if (!origin) continue;
      const capped = capItems(s.items);
      skipped.storageItemsOverCap += capped.dropped;
      if (capped.items.length > 0) storage.push({ origin, items: capped.items });
    }
  }
  try {
    await Promise.all([agent.loadCookies(byDomain), agent.load(storage)]);
  } catch (err) {
    throw new ProfileStateError(`the profile could not be loaded: ${reason(err)}`, { cause: err });
  }
  const queued = storage.map((s) => ({ origin: s.origin, items: agent.loaded(s.origin) ?? s.items }));
  return {
    domains: groupByDomain(kept, queued).domains,
    cookies: kept.length,
    origins: queued.length,
    skipped,
    cookiesIn: agent.cookiesIn().then((r) => ({ refusedCookies: r.refused })),
  };
}

/**
 * Starts recording the documents `context` commits (main frames and iframes, of pages open now and
 * opened later, popups included). Call it before the first navigation (after applyProfileState, the
 * context is already attached and nothing is missed; alone, recording starts a few milliseconds
 * later, once the context is attached). Documents open at the start are counted. Best effort: a
 * context that cannot be attached records nothing.
 */
export function watchVisits(context: BrowserContext): VisitWatcher {
  const origins = new Set<string>();
  const domains = new Set<string>();
  let stopped = false;
  let unwatch = () => {};
  agentFor(context).then(
    (agent) => {
      if (stopped) return;
      unwatch = agent.watch((origin) => {
        origins.add(origin);
        domains.add(registrableDomain(new URL(origin).hostname));
      });
    },
    () => {},
  );
  return {
    domains: () => [...domains],
    origins: () => [...origins],
    stop: () => {
      stopped = true;
      unwatch();
    },
  };
}

/**
 * The state of `context` now: all its cookies (partitioned ones included, session cookies kept),
 * and localStorage of `origins` and of the origins loaded into it, grouped per registrable domain.
 * An origin's items come from a frame open on it, else through a hidden page (an origin the context
 * opened first-party and left), else as loaded; an origin with no items is left out. Never throws because a page or frame closed
 * meanwhile; rejects with ProfileStateError only when the cookies cannot be read (the context or
 * the browser is gone), since a state without them would read as logged out everywhere.
 */
export async function readProfileState(context: BrowserContext, origins: string[]): Promise<DomainState[]> {
  const agent = await agentOrFail(context, "the profile state could not be read");
  let cookies: ProfileCookie[];
  try {
    // Cookies still going in would read as missing: the read waits for them.
    await agent.cookiesIn();
    cookies = await getCookies(agent);
  } catch (err) {
    throw new ProfileStateError(`the profile state could not be read: ${reason(err)}`, { cause: err });
  }
  const wanted = new Set<string>();
  for (const o of [...origins, ...agent.loadedOrigins()]) {
    const origin = httpOrigin(o);
    if (origin) wanted.add(origin);
  }
  const read = await agent.readStorage([...wanted]).catch(() => new Map<string, StorageItems>());
  const storage = [...wanted].map((origin): OriginStorage => {
    const items = read.get(origin) ?? agent.loaded(origin) ?? [];
    return { origin, items: capItems(items).items };
  });
  return groupByDomain(cookies, storage).domains;
}
