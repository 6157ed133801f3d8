import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer, { type Browser, type Frame } from "puppeteer-core";
import { CHROMIUM_ARGS } from "../../containers/browser/chromium-process.ts";
import type { DomainState } from "../../functions/profiles/profile-state.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * A loopback site for profile tests, answering on every host name that reaches it (127.0.0.1,
 * localhost, and *.test names the test browser maps to 127.0.0.1), so one server is many sites.
 * Every page's first script records the localStorage it found before any other script ran
 * (`window.__seen`, sorted entries as JSON); the server records each request's Cookie header.
 *
 *   /page                    a page
 *   /set?c=<Set-Cookie>&…    a page sent with those Set-Cookie headers
 *   /frames?src=<url>&…      a page with an iframe per src
 *   /store-and-go?to=<url>   a login's last step: stores token=fresh and leaves for `to` in the same script
 */

export interface ProfileSite {
  port: number;
  url(host: string, path?: string): string;
  /** The Cookie header of the last request for host + path (undefined: no request; "": none sent). */
  cookieHeader(host: string, path: string): string | undefined;
  /** When (performance.now()) the last request for host + path arrived. */
  requestedAt(host: string, path: string): number | undefined;
  close(): Promise<void>;
}

const page = (extra = "") =>
  `<!doctype html><html><head><script>window.__seen = JSON.stringify(Object.entries(localStorage).sort());</script></head><body>${extra}</body></html>`;

export async function startProfileSite(): Promise<ProfileSite> {
  const cookies = new Map<string, string>();
  const times = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const host = (req.headers.host ?? "").toLowerCase();
    cookies.set(`${host}${url.pathname}`, req.headers.cookie ?? "");
    times.set(`${host}${url.pathname}`, performance.now());
    const headers: Record<string, string | string[]> = {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    };
    if (url.pathname === "/set") headers["set-cookie"] = url.searchParams.getAll("c");
    if (url.pathname === "/page" || url.pathname === "/set") return res.writeHead(200, headers).end(page());
    if (url.pathname === "/frames") {
      const frames = url.searchParams
        .getAll("src")
        .map((src) => `<iframe src="${src.replaceAll('"', "&quot;")}"></iframe>`)
        .join("");
      return res.writeHead(200, headers).end(page(frames));
    }
    if (url.pathname === "/store-and-go") {
      const to = JSON.stringify(url.searchParams.get("to") ?? "/page").replaceAll("<", "\\u003c");
      return res
        .writeHead(200, headers)
        .end(page(`<script>localStorage.setItem("token", "fresh"); location.href = ${to};</script>`));
    }
    res.writeHead(404, headers).end(page("not found"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (host, path = "/page") => `http://${host}:${port}${path}`,
    cookieHeader: (host, path) => cookies.get(`${host}:${port}${path}`),
    requestedAt: (host, path) => times.get(`${host}:${port}${path}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Set-Cookie route: the page at `host` that sets `cookies`. */
export const setCookieUrl = (site: ProfileSite, host: string, cookies: string[]) =>
  site.url(host, `/set?${cookies.map((c) => `c=${encodeURIComponent(c)}`).join("&")}`);

/** A page at `host` with an iframe per src. */
export const framesUrl = (site: ProfileSite, host: string, srcs: string[]) =>
  site.url(host, `/frames?${srcs.map((s) => `src=${encodeURIComponent(s)}`).join("&")}`);

/** The test browser: the production flags, and every *.test name mapped to 127.0.0.1 (so domain cookies can be tried). */
export function launchProfileBrowser(opts: { siteIsolation?: boolean } = {}): Promise<Browser> {
  const args = [...CHROMIUM_ARGS, "--host-resolver-rules=MAP *.test 127.0.0.1"];
  return puppeteer.launch({
    executablePath: CHROME,
    headless: true,
    // With site isolation a cross-site iframe is a target of its own (what the agent's nested auto-attach is for).
    args: opts.siteIsolation
      ? args.filter((a) => a !== "--disable-site-isolation-trials" && !a.startsWith("--disable-features"))
      : args,
  });
}

/** What a frame's first script found in localStorage. */
export const seen = async (frame: Pick<Frame, "evaluate">): Promise<[string, string][]> =>
  JSON.parse(await frame.evaluate(() => (window as unknown as { __seen: string }).__seen));

/**
 * The issue's size: 50 registrable domains (www.siteN.test) × 40 cookies (host-only and domain,
 * session and persistent, some HttpOnly, Lax and Strict), and one origin of 10 localStorage items each.
 */
export function bigProfile(port: number, cookiesPerDomain = 40): DomainState[] {
  const in30Days = Math.floor(Date.now() / 1000) + 30 * 86_400;
  return Array.from({ length: 50 }, (_, d) => ({
    domain: `site${d}.test`,
    cookies: Array.from({ length: cookiesPerDomain }, (_, i) => ({
      name: `c${i}`,
      value: `v${d}-${i}-${"x".repeat(i % 7)}`,
      domain: i % 2 === 0 ? `.site${d}.test` : `www.site${d}.test`,
      path: "/",
      expires: i % 3 === 0 ? -1 : in30Days + i,
      httpOnly: i % 4 === 0,
      secure: false,
      sameSite: i % 5 === 0 ? ("Strict" as const) : ("Lax" as const),
    })),
    localStorage: [
      {
        origin: `http://www.site${d}.test:${port}`,
        items: Array.from({ length: 10 }, (_, i): [string, string] => [`key${i}`, `value-${d}-${i}-${"y".repeat(20)}`]),
      },
    ],
  }));
}
