import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { type AllowedHost, isPrivateHostAllowed } from "../config/config.ts";
import { trimEndWhere } from "../lib/trim.ts";

/**
 * The one module that decides whether Osprey may connect to a destination (STYLE habit 9; issue 3,
 * "Address policy"). Fetch, webhooks and the browser egress proxy all ask it. Only public unicast
 * addresses pass: ipaddr.js classifies every address (`process()` first unwraps IPv4-mapped IPv6),
 * anything it does not call `unicast` is refused, and the explicit rules below close what its
 * classification leaves open. Names are judged by WHATWG URL parsing first, so every odd IPv4
 * spelling (decimal, octal, hex, short, full-width) is normalised before it is checked.
 */

/** Resolves a host name to every address it has (the default is the system resolver). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Every `dns` AddressPolicyError message says this: a name that does not resolve is a navigation
 * failure, not a policy refusal, and callers that only see the message (a browser's refused-request
 * list) tell the two apart with isDnsFailure.
 */
const DNS_FAILURE = "could not be resolved";
export const isDnsFailure = (reason: string): boolean => reason.includes(DNS_FAILURE);

export class AddressPolicyError extends Error {
  override name = "AddressPolicyError";
  /** `blocked`: the policy refused the destination; `dns`: the name could not be resolved. */
  readonly kind: "blocked" | "dns";
  constructor(kind: "blocked" | "dns", message: string) {
    super(message);
    this.kind = kind;
  }
}

const cidr = (text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] => ipaddr.parseCIDR(text);

/** Cloud metadata and platform endpoints, refused even where their range would be allowed. */
const METADATA_ADDRESSES = [
  "169.254.169.254/32", // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean, Oracle (legacy)
  "169.254.170.2/32", // AWS ECS task metadata
  "169.254.169.253/32", // AWS DNS resolver
  "168.63.129.16/32", // Azure WireServer: a public address, so only this rule refuses it
  "100.100.100.200/32", // Alibaba Cloud
  "192.0.0.192/32", // Oracle Cloud
  "fd00:ec2::254/128", // AWS IMDS over IPv6
  "fd00:ec2::253/128", // AWS DNS over IPv6
].map(cidr);

/** All globally routable unicast IPv6 lies in 2000::/3; ipaddr calls e.g. `::7f00:1` unicast too. */
const GLOBAL_UNICAST_V6 = cidr("2000::/3");
/** NAT64 well-known prefix (RFC 6052): allowed only when the embedded IPv4 is itself public. */
const NAT64_WELL_KNOWN = cidr("64:ff9b::/96");

function isPublicV4(addr: ipaddr.IPv4): boolean {
  return addr.range() === "unicast" && !METADATA_ADDRESSES.some((r) => r[0].kind() === "ipv4" && addr.match(r));
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  if (METADATA_ADDRESSES.some((r) => r[0].kind() === "ipv6" && addr.match(r))) return false;
  if (addr.match(NAT64_WELL_KNOWN)) {
    const bytes = addr.toByteArray().slice(12);
    return isPublicV4(new ipaddr.IPv4(bytes));
  }
  // 6to4, Teredo, local-use NAT64 (64:ff9b:1::/48), IPv4-compatible (::/96), ULA, link-local,
  // documentation and the rest all fall outside `unicast` or outside 2000::/3.
  return addr.range() === "unicast" && addr.match(GLOBAL_UNICAST_V6);
}

/** Whether `ip` (a canonical IPv4 or IPv6 literal, as a resolver returns it) is public unicast. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  // net.isIP accepts only canonical spellings; ipaddr.js would also accept "0177.1" and friends.
  if (isIP(bare) === 0) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(bare);
  } catch {
    return false;
  }
  return addr.kind() === "ipv4" ? isPublicV4(addr as ipaddr.IPv4) : isPublicV6(addr as ipaddr.IPv6);
}

/** Names that reach the machine itself, the cluster or a cloud metadata service. */
const DENIED_NAMES = new Set(["metadata.google.internal", "metadata.goog", "instance-data"]);
/** Special-use and internal-only suffixes (RFC 6761, 6762, 7686, 8375, ICANN's `.internal`). */
const DENIED_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "localdomain",
  "home.arpa",
  "test",
  "invalid",
  "onion",
  "lan",
  "intranet",
  "corp",
  "home",
  "svc",
  "cluster.local",
];

/** Why a host name (not an IP literal) is refused, or null when it may be resolved. */
function nameVerdict(name: string): string | null {
  if (DENIED_NAMES.has(name)) return `host "${name}" is a cloud metadata name`;
  // A single label (`metadata`, `intranet`, `kubernetes`) is resolved through search domains and
  // never names a public web site.
  if (!name.includes(".")) return `host "${name}" is not a fully qualified public name`;
  const suffix = DENIED_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  return suffix ? `host "${name}" is in the internal-only domain ".${suffix}"` : null;
}

/** Host without IPv6 brackets or a trailing dot, lower-cased: the form policy rules compare. */
export function bareHost(hostname: string): string {
  return trimEndWhere(hostname.toLowerCase().replace(/^\[|\]$/g, ""), (c) => c === ".");
}

/** Why a host (name or IP literal, bare) is refused, or null when it passes. */
export function hostVerdict(host: string): string | null {
  if (host === "") return "URL has no host";
  if (isIP(host) !== 0) return isPublicAddress(host) ? null : `address ${host} is not a public unicast address`;
  return nameVerdict(host);
}

/**
 * Ports browsers refuse to fetch from (WHATWG Fetch, "bad port"): mail, DNS, IRC, SSH and the like.
 * Refusing them keeps an http request from being smuggled into another protocol on a public host.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
  115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
  563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
  6668, 6669, 6679, 6697, 10080,
]);

export function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

const isExempt = (allow: AllowedHost[], host: string, port: number) =>
  allow.length > 0 && isPrivateHostAllowed({ allowPrivateHosts: allow }, host, port);

/**
 * The pre-DNS check of a URL: http(s) only, no credentials, a host that is not refused by name or
 * by address. The returned URL is the one to connect to: it is parsed once, here, so no other
 * parser can read a different host out of the same text.
 */
export function checkUrl(raw: string, allow: AllowedHost[]): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme "${url.protocol.slice(0, -1)}" is not allowed (http or https only)` };
  }
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "URLs with credentials are not allowed" };
  const host = bareHost(url.hostname);
  if (host === "") return { ok: false, reason: "URL has no host" };
  const port = effectivePort(url);
  if (port === 0) return { ok: false, reason: "port 0 is not allowed" };
  if (isExempt(allow, host, port)) return { ok: true, url };
  if (BAD_PORTS.has(port)) return { ok: false, reason: `port ${port} is not allowed` };
  const verdict = hostVerdict(host);
  return verdict ? { ok: false, reason: verdict } : { ok: true, url };
}

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, order: "verbatim" });

/**
 * Resolves `hostname` and returns the address to pin the connection to. Every A/AAAA answer must
 * be public (one private answer refuses the whole name: a resolver may rotate answers between our
 * check and a later lookup). An IP literal is checked without resolving. IPv4 is preferred because
 * many hosts that publish AAAA records have no working IPv6 route.
 */
export async function resolvePublic(
  hostname: string,
  port: number,
  allow: AllowedHost[],
  resolver: Resolver = systemResolver,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = bareHost(hostname);
  const exempt = isExempt(allow, host, port);
  const literal = isIP(host);
  if (literal !== 0) {
    if (!exempt && !isPublicAddress(host)) throw new AddressPolicyError("blocked", `address ${host} is not public`);
    return { address: host, family: literal === 4 ? 4 : 6 };
  }
  const verdict = exempt ? null : nameVerdict(host);
  if (verdict) throw new AddressPolicyError("blocked", verdict);
  let answers: { address: string; family: number }[];
  try {
    answers = await resolver(host);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new AddressPolicyError("dns", `${host} ${DNS_FAILURE}${typeof code === "string" ? ` (${code})` : ""}`);
  }
  const checked: { address: string; family: 4 | 6 }[] = [];
  for (const answer of answers) {
    const family = isIP(answer.address);
    if (family === 0) throw new AddressPolicyError("dns", `${host} ${DNS_FAILURE}: the resolver returned a malformed address`);
    if (!exempt && !isPublicAddress(answer.address)) {
      throw new AddressPolicyError("blocked", `${host} resolves to ${answer.address}, which is not public`);
    }
    checked.push({ address: answer.address, family: family === 4 ? 4 : 6 });
  }
  const pinned = checked.find((a) => a.family === 4) ?? checked[0];
  if (!pinned) throw new AddressPolicyError("dns", `${host} ${DNS_FAILURE}: it has no addresses`);
  return pinned;
}
