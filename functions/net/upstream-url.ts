import { isIP } from "node:net";

/**
 * The URL of an upstream proxy that the browser egress proxy chains to (issue "[2 of 6]": an
 * operator's proxy for a `managed` country, or a caller's `custom` one). It lives in functions/ so
 * that the API layer can refuse a bad `custom` URL with a 400 using the very rules the egress proxy
 * applies (containers/browser/egress-upstream.ts).
 *
 * The URL may carry credentials: no reason below ever quotes the URL or any part of its userinfo,
 * and `display` is the only form of it that logs, refusals and errors may show.
 */

export interface UpstreamProxy {
  protocol: "http:" | "https:";
  /** Host name (lower-case, punycode) or IP literal, without brackets: what is judged and connected to. */
  host: string;
  port: number;
  /** `host:port`, an IPv6 literal in brackets: the authority to put in a URL. */
  authority: string;
  /** `Basic …` from the URL's percent-decoded userinfo, or null without one. A secret. */
  authorization: string | null;
  /** `scheme://host:port`, without credentials. */
  display: string;
}

export type UpstreamUrlCheck = { ok: true; proxy: UpstreamProxy } | { ok: false; reason: string };

const EXPECTED = "expected http(s)://[user:password@]host[:port]";

function decodeUserinfo(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/**
 * Checks an upstream proxy URL: http or https only, a host, a port (default 80 or 443), no path,
 * query or fragment beyond "/", userinfo allowed (percent-decoded into Basic Proxy-Authorization).
 * Whether the host may be connected to is not decided here: that depends on who configured the
 * proxy (an untrusted one is judged by the address policy at each connection).
 */
export function parseUpstreamUrl(raw: string): UpstreamUrlCheck {
  if (typeof raw !== "string" || raw.length > 2048) return { ok: false, reason: `not a valid proxy URL (${EXPECTED})` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `not a valid proxy URL (${EXPECTED})` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `proxy scheme "${url.protocol.slice(0, -1)}" is not supported (http or https only)` };
  }
  if (url.hostname === "") return { ok: false, reason: `the proxy URL has no host (${EXPECTED})` };
  // WHATWG URL turns an empty path into "/" and drops a lone "?" or "#": all three still mean "none".
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return { ok: false, reason: `a proxy URL has no path, query or fragment (${EXPECTED})` };
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (port === 0) return { ok: false, reason: "port 0 is not a proxy port" };
  let authorization: string | null = null;
  if (url.username !== "" || url.password !== "") {
    const user = decodeUserinfo(url.username);
    const password = decodeUserinfo(url.password);
    if (user === null || password === null) return { ok: false, reason: "the proxy credentials are not valid percent-encoding" };
    // RFC 7617 2: the user-id of Basic credentials cannot contain a colon.
    if (user.includes(":")) return { ok: false, reason: 'the proxy user name may not contain ":"' };
    authorization = `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return {
    ok: true,
    proxy: { protocol: url.protocol, host, port, authority, authorization, display: `${url.protocol}//${authority}` },
  };
}
