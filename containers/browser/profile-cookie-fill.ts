import type { CDPSession, Protocol } from "puppeteer-core";
import { registrableDomain } from "../../functions/vault/domains.ts";
import { bounded } from "./request-guard.ts";

/**
 * Puts a profile's cookies into a context without making the context wait for all of them.
 *
 * Chromium takes about 50 µs per cookie in Storage.setCookies, whatever the batching (2,000 cookies:
 * 100 ms on a loaded 2-core machine), so loading them all before the first navigation would cost a
 * run that much on every start. Instead the cookies go in one registrable domain at a time in the
 * background, and until they are all in, every request of the context to a domain of the profile
 * is held (Fetch at the Request stage on each page, frame and worker of the context: before Chromium
 * attaches cookies to it) until that domain's cookies are in: its domain is set at once, ahead of
 * the queue. Once every domain is in, the holding ends (Fetch.disable), so a context pays it only
 * in its first fraction of a second, and only on requests to the profile's sites.
 *
 * Not held: WebSocket handshakes and requests a service or shared worker makes (Fetch does not see
 * them from a page); in an incognito context those carry no third-party cookies anyway, and a
 * site's own ones follow a document of the site, whose request was held.
 */

/** Fetch patterns per domain: the domain itself and its subdomains, any scheme and port. */
const patternsFor = (domain: string): Protocol.Fetch.RequestPattern[] =>
  [`*://${domain}/*`, `*://${domain}:*`, `*://*.${domain}/*`, `*://*.${domain}:*`].map((urlPattern) => ({
    urlPattern,
    requestStage: "Request" as const,
  }));

const isInvalidCookie = (err: unknown) => err instanceof Error && /Invalid cookie fields|Invalid parameters/i.test(err.message);

/**
 * Sets cookies with one Storage.setCookies; Chromium refuses the whole batch when one cookie is
 * malformed, so a refused batch is halved until the bad ones are found alone. Returns how many
 * were refused; throws when the context is gone.
 */
export async function setCookies(
  session: CDPSession,
  scope: { browserContextId?: string },
  cookies: Protocol.Network.CookieParam[],
): Promise<number> {
  if (cookies.length === 0) return 0;
  try {
    await session.send("Storage.setCookies", { cookies, ...scope });
    return 0;
  } catch (err) {
    if (!isInvalidCookie(err)) throw err;
    if (cookies.length === 1) return 1;
    const half = Math.ceil(cookies.length / 2);
    const [a, b] = await Promise.all([
      setCookies(session, scope, cookies.slice(0, half)),
      setCookies(session, scope, cookies.slice(half)),
    ]);
    return a + b;
  }
}

export interface CookieFill {
  /**
   * Holds the requests of a target (page, frame or worker, paused or not) until their domain's
   * cookies are in; does nothing once all are. The commands are sent at once, so a paused target
   * may be resumed right after.
   */
  arm(session: CDPSession): Promise<unknown>;
  /** Whether a target created now still needs arming. */
  active(): boolean;
  /** Resolves once every cookie is in (or the context is gone), with how many Chromium refused. */
  readonly done: Promise<{ refused: number; failed: boolean }>;
}

export function startCookieFill(
  browserSession: CDPSession,
  scope: { browserContextId?: string },
  byDomain: Map<string, Protocol.Network.CookieParam[]>,
): CookieFill {
  const fills = new Map<string, Promise<void>>();
  const armed = new Set<CDPSession>();
  const patterns = [...byDomain.keys()].flatMap(patternsFor);
  let refused = 0;
  let failed = false;
  let finished = byDomain.size === 0;

  const fill = (domain: string): Promise<void> => {
    let p = fills.get(domain);
    if (!p) {
      p = setCookies(browserSession, scope, byDomain.get(domain) ?? []).then(
        (n) => {
          refused += n;
        },
        () => {
          failed = true;
        },
      );
      fills.set(domain, p);
    }
    return p;
  };

  const onPaused = (session: CDPSession) => async (e: Protocol.Fetch.RequestPausedEvent) => {
    if (URL.canParse(e.request.url)) {
      const domain = registrableDomain(new URL(e.request.url).hostname);
      if (byDomain.has(domain)) await bounded(fill(domain), undefined);
    }
    await session.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {});
  };

  const done = (async () => {
    // One domain at a time, so a domain a request waits for is set after at most one other.
    for (const domain of byDomain.keys()) {
      await fill(domain);
      if (failed) break;
    }
    finished = true;
    await Promise.all([...armed].map((s) => bounded(s.send("Fetch.disable"), undefined)));
    armed.clear();
    return { refused, failed };
  })();

  return {
    arm(session) {
      if (finished || armed.has(session)) return Promise.resolve();
      armed.add(session);
      session.on("Fetch.requestPaused", onPaused(session));
      return session.send("Fetch.enable", { patterns }).catch(() => {});
    },
    active: () => !finished,
    done,
  };
}
