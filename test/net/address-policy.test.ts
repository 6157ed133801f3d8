import net from "node:net";
import ipaddr from "ipaddr.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AllowedHost } from "../../functions/config/config.ts";
import { parseAllowedHost } from "../../functions/config/config.ts";
import { checkUrl, isPublicAddress } from "../../functions/net/address-policy.ts";
import { safeFetch } from "../../functions/net/safe-http.ts";
import { ACCEPTED_URLS } from "./address-accepted.ts";
import { REJECTED_URLS, SENSITIVE_V4, v4Spellings } from "./address-cases.ts";
import { ORACLE_BLOCKED_V4, ORACLE_BLOCKED_V6_IN_GLOBAL } from "./address-oracle.ts";
import { type Origin, startOrigin, stubResolver } from "./helpers.ts";

const connects = vi.spyOn(net.Socket.prototype, "connect");
afterEach(() => connects.mockClear());
// A worker that runs other files after this one (isolate: false) must get the real connect back.
afterAll(() => connects.mockRestore());

describe("checkUrl and safeFetch refuse every payload without a connection", () => {
  it("has hundreds of payloads", () => {
    expect(REJECTED_URLS.length).toBeGreaterThanOrEqual(400);
  });

  it.each(REJECTED_URLS)("$why: $url", async ({ url }) => {
    expect(checkUrl(url, [])).toMatchObject({ ok: false, reason: expect.any(String) });
    const { resolver, calls } = stubResolver({});
    const result = await safeFetch(url, { resolver });
    expect(result).toMatchObject({ ok: false, error: "invalid_url" });
    expect(calls).toEqual([]);
    expect(connects).not.toHaveBeenCalled();
  });
});

describe("checkUrl accepts public destinations", () => {
  it.each(ACCEPTED_URLS)("%s", (url) => {
    const result = checkUrl(url, []);
    expect(result.ok, result.ok ? "" : result.reason).toBe(true);
  });

  it("returns the normalised URL it checked", () => {
    const result = checkUrl("http://0x8.0x8.0x8.0x8:8080/a?b#c", []);
    expect(result.ok && result.url.href).toBe("http://8.8.8.8:8080/a?b#c");
  });
});

describe("a live loopback server sees no connection from any spelling of its address", () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin();
  });
  afterAll(() => origin.close());

  const hosts = [
    ...v4Spellings("127.0.0.1").map((s) => s.host),
    "localhost",
    "LOCALHOST.",
    "foo.localhost",
    "[::1]",
    "[::]",
    "0.0.0.0",
  ];
  it.each(hosts)("http://%s:<port>/", async (host) => {
    const { resolver } = stubResolver({});
    const result = await safeFetch(`http://${host}:${origin.port}/`, { resolver });
    expect(result).toMatchObject({ ok: false, error: "invalid_url" });
    expect(origin.connections()).toBe(0);
  });

  it("but reaches it once it is exempted", async () => {
    const result = await safeFetch(origin.url("/hi"), { allow: [{ host: "127.0.0.1", port: origin.port }] });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(origin.connections()).toBe(1);
    // The spy that proves "no connection" above does see real connections.
    expect(connects).toHaveBeenCalledTimes(1);
  });
});

describe("OSPREY_ALLOW_PRIVATE_HOSTS exempts exactly host[:port]", () => {
  const allow = (...entries: string[]): AllowedHost[] =>
    entries.map((e) => parseAllowedHost(e)).filter((e): e is AllowedHost => e !== null);

  it.each([
    ["http://127.0.0.1:8080/", ["127.0.0.1:8080"], true],
    ["http://127.0.0.1:8081/", ["127.0.0.1:8080"], false],
    ["http://2130706433:8080/", ["127.0.0.1:8080"], true],
    ["http://127.0.0.2:8080/", ["127.0.0.1:8080"], false],
    ["http://localhost/", ["localhost"], true],
    ["http://localhost:9999/", ["localhost"], true],
    ["http://LOCALHOST.:9999/", ["localhost"], true],
    ["http://foo.localhost/", ["localhost"], false],
    ["http://wiki.corp/", ["wiki.corp:80"], true],
    ["https://wiki.corp/", ["wiki.corp:80"], false],
    ["https://wiki.corp/", ["wiki.corp:443"], true],
    ["http://[::1]:3000/", ["[::1]:3000"], true],
    ["http://[0:0::1]:3000/", ["[::1]:3000"], true],
    ["http://[::1]:3001/", ["[::1]:3000"], false],
    ["http://169.254.169.254/", ["10.0.0.1"], false],
    ["http://metadata/", ["metadata"], true],
    ["ftp://127.0.0.1:8080/", ["127.0.0.1:8080"], false],
    ["http://u:p@127.0.0.1:8080/", ["127.0.0.1:8080"], false],
    ["http://example.com:25/", ["example.com:25"], true],
  ] as const)("%s with %j → %s", (url, entries, ok) => {
    expect(checkUrl(url, allow(...entries)).ok).toBe(ok);
  });
});

/** A tiny deterministic PRNG, so random samples are the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s;
  };
}

const v4Oracle = ORACLE_BLOCKED_V4.map((c) => ipaddr.IPv4.parseCIDR(c));
const v6Oracle = ORACLE_BLOCKED_V6_IN_GLOBAL.map((c) => ipaddr.IPv6.parseCIDR(c));
const GLOBAL = ipaddr.IPv6.parseCIDR("2000::/3");
const v4FromInt = (n: number) => ipaddr.fromByteArray([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]).toString();
const v4Int = (ip: string) => ipaddr.IPv4.parse(ip).octets.reduce((n, o) => n * 256 + o, 0);
const oracleV4 = (ip: string) => !v4Oracle.some((r) => ipaddr.IPv4.parse(ip).match(r));
const oracleV6 = (ip: string) => {
  const a = ipaddr.IPv6.parse(ip);
  return a.match(GLOBAL) && !v6Oracle.some((r) => a.match(r));
};

const v4Edges = ORACLE_BLOCKED_V4.flatMap((c) => {
  const [net4, bits] = ipaddr.IPv4.parseCIDR(c);
  const first = v4Int(net4.toString());
  const last = first + 2 ** (32 - bits) - 1;
  return [first, last, first + Math.floor((last - first) / 2), first - 1, last + 1]
    .filter((n) => n >= 0 && n <= 0xffffffff)
    .map(v4FromInt);
});
const rand = prng(20261121);
const v4Random = Array.from({ length: 300 }, () => v4FromInt(rand()));
const v6Random = Array.from({ length: 150 }, (_, i) => {
  const groups = Array.from({ length: 8 }, () => rand() & 0xffff);
  // Half inside 2000::/3, half anywhere.
  if (i % 2 === 0) groups[0] = 0x2000 | ((groups[0] ?? 0) & 0x1fff);
  return groups.map((g) => g.toString(16)).join(":");
});

describe("isPublicAddress agrees with the IANA oracle", () => {
  it.each([...new Set([...v4Edges, ...v4Random])])("%s", (ip) => {
    expect(isPublicAddress(ip)).toBe(oracleV4(ip));
  });

  it.each(v6Random)("%s", (ip) => {
    expect(isPublicAddress(ip)).toBe(oracleV6(ip));
  });

  it.each(SENSITIVE_V4.flatMap((ip) => [ip, `::ffff:${ip}`, `64:ff9b::${ip}`]))("%s is not public", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    "0177.0.0.1",
    "2130706433",
    "0x7f000001",
    "127.1",
    "1.1.1",
    "08.8.8.8",
    "",
    "example.com",
    "1.1.1.1/32",
    " 1.1.1.1",
    "fe80::1%eth0",
    "::ffff:127.0.0.1",
    "[::1]",
  ])("rejects the non-canonical or non-public input %j", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "[2001:4860:4860::8888]", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"])(
    "%s is public",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});
