import type { LookupOptions } from "node:dns";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AddressPolicyError, resolvePublic } from "../../functions/net/address-policy.ts";
import { safeFetch } from "../../functions/net/safe-http.ts";
import { type Origin, startOrigin, stubResolver } from "./helpers.ts";

const PUBLIC_V4 = "93.184.216.34";
const PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946";

async function refusal(p: Promise<unknown>): Promise<AddressPolicyError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AddressPolicyError);
  return err as AddressPolicyError;
}

describe("resolvePublic", () => {
  it.each([
    [[PUBLIC_V4], { address: PUBLIC_V4, family: 4 }],
    [[PUBLIC_V6], { address: PUBLIC_V6, family: 6 }],
    [[PUBLIC_V6, PUBLIC_V4], { address: PUBLIC_V4, family: 4 }],
    [["1.1.1.1", "8.8.8.8"], { address: "1.1.1.1", family: 4 }],
    [["::ffff:8.8.8.8"], { address: "::ffff:8.8.8.8", family: 6 }],
  ])("answers %j → pins %j", async (answers, pinned) => {
    const { resolver } = stubResolver({ "site.example.com": answers });
    await expect(resolvePublic("site.example.com", 443, [], resolver)).resolves.toEqual(pinned);
  });

  it.each([
    [PUBLIC_V4, "10.0.0.1"],
    ["127.0.0.1", PUBLIC_V4],
    [PUBLIC_V4, "169.254.169.254"],
    [PUBLIC_V6, "fd00:ec2::254"],
    [PUBLIC_V6, "::1"],
    [PUBLIC_V4, "::ffff:127.0.0.1"],
    [PUBLIC_V4, "64:ff9b::a9fe:a9fe"],
    [PUBLIC_V4, "fe80::1%eth0"],
    [PUBLIC_V4, "100.100.100.200"],
    [PUBLIC_V4, "168.63.129.16"],
    [PUBLIC_V4, "0.0.0.0"],
    [PUBLIC_V4, "::"],
    ["1.1.1.1", "8.8.8.8", "1.1.1.1", "192.168.0.10"],
  ])("refuses the whole name when any answer is private: %j", async (...answers) => {
    const { resolver } = stubResolver({ "mixed.example.com": answers });
    expect((await refusal(resolvePublic("mixed.example.com", 80, [], resolver))).kind).toBe("blocked");
  });

  it.each([
    ["no answers", []],
    ["a malformed answer", ["not-an-address"]],
    ["a non-canonical answer", ["0177.0.0.1"]],
  ])("reports a DNS failure for %s", async (_label, answers) => {
    const { resolver } = stubResolver({ "odd.example.com": answers });
    expect((await refusal(resolvePublic("odd.example.com", 80, [], resolver))).kind).toBe("dns");
  });

  it("reports a DNS failure when the resolver throws", async () => {
    const { resolver } = stubResolver({});
    const err = await refusal(resolvePublic("nxdomain.example.com", 80, [], resolver));
    expect(err.kind).toBe("dns");
    expect(err.message).toContain("ENOTFOUND");
  });

  it.each(["127.0.0.1", "[::1]", "::ffff:7f00:1", "169.254.169.254", "localhost", "metadata.google.internal", "x.localhost."])(
    "refuses %s before asking the resolver",
    async (host) => {
      const { resolver, calls } = stubResolver({});
      expect((await refusal(resolvePublic(host, 80, [], resolver))).kind).toBe("blocked");
      expect(calls).toEqual([]);
    },
  );

  it("checks IP literals without resolving", async () => {
    const { resolver, calls } = stubResolver({});
    await expect(resolvePublic("8.8.8.8", 80, [], resolver)).resolves.toEqual({ address: "8.8.8.8", family: 4 });
    await expect(resolvePublic("[2606:4700::1]", 80, [], resolver)).resolves.toEqual({ address: "2606:4700::1", family: 6 });
    expect(calls).toEqual([]);
  });

  it("lets an exempt host[:port] resolve to private addresses, and only at that port", async () => {
    const { resolver } = stubResolver({ "db.example.com": ["10.0.0.5"] });
    const allow = [{ host: "db.example.com", port: 8080 }];
    await expect(resolvePublic("db.example.com", 8080, allow, resolver)).resolves.toEqual({ address: "10.0.0.5", family: 4 });
    expect((await refusal(resolvePublic("db.example.com", 8081, allow, resolver))).kind).toBe("blocked");
    await expect(resolvePublic("127.0.0.1", 9, [{ host: "127.0.0.1", port: null }])).resolves.toMatchObject({ family: 4 });
  });

  it("exempts the listed name, not whatever resolves to the listed address", async () => {
    const { resolver } = stubResolver({ "public-name.example.com": ["127.0.0.1"] });
    const allow = [{ host: "127.0.0.1", port: null }];
    expect((await refusal(resolvePublic("public-name.example.com", 80, allow, resolver))).kind).toBe("blocked");
  });
});

describe("DNS rebinding", () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin((req, res) => res.end(`host=${req.headers.host}`));
  });
  afterAll(() => origin.close());
  afterEach(() => vi.restoreAllMocks());

  it("connects to the address that was checked, never to a second answer", async () => {
    // First answer public, every later answer the loopback origin: a rebinding resolver.
    const { resolver, calls } = stubResolver({ "rebind.example.com": (n) => (n === 1 ? [PUBLIC_V4] : ["127.0.0.1"]) });
    const original = net.Socket.prototype.connect;
    const dialled: string[] = [];
    vi.spyOn(net.Socket.prototype, "connect").mockImplementation(function (this: net.Socket, ...args: unknown[]) {
      const first = args[0];
      const opts = (Array.isArray(first) ? first[0] : first) as net.TcpSocketConnectOpts;
      // The socket's own lookup says where it is going (as net.connect asks it); the public address
      // is not reachable from a test, so its dial fails as a refused connection would.
      const inner = opts.lookup;
      if (!inner) dialled.push(opts.host ?? "");
      else {
        opts.lookup = ((host: string, o: LookupOptions, cb: (...r: unknown[]) => void) =>
          inner(host, o, (err, a, family) => {
            const address = Array.isArray(a) ? String(a[0]?.address) : String(a);
            dialled.push(address);
            if (address === "127.0.0.1") cb(err, a, family);
            else cb(Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: "ECONNREFUSED" }));
          })) as net.LookupFunction;
      }
      return (original as (...a: unknown[]) => net.Socket).apply(this, args);
    });
    const result = await safeFetch(`http://rebind.example.com:${origin.port}/`, { resolver });
    expect(result).toMatchObject({ ok: false, error: "target_unreachable" });
    expect(dialled).toEqual([PUBLIC_V4]);
    expect(calls).toEqual(["rebind.example.com"]);
    expect(origin.connections()).toBe(0);
  });

  it("re-resolves and re-checks on each redirect hop", async () => {
    const hop = await startOrigin((_req, res) => {
      res.writeHead(302, { location: `http://rebind2.example.com:${origin.port}/` }).end();
    });
    try {
      const { resolver, calls } = stubResolver({ "rebind2.example.com": ["127.0.0.1"] });
      const result = await safeFetch(hop.url(), { resolver, allow: [{ host: "127.0.0.1", port: hop.port }] });
      expect(result).toMatchObject({ ok: false, error: "invalid_redirect_url" });
      expect(calls).toEqual(["rebind2.example.com"]);
      expect(origin.connections()).toBe(0);
    } finally {
      await hop.close();
    }
  });

  it("pins the connection to the resolved address and keeps the Host header", async () => {
    const { resolver, calls } = stubResolver({ "app.example.com": (n) => (n === 1 ? ["127.0.0.1"] : ["127.0.0.2"]) });
    const allow = [{ host: "app.example.com", port: origin.port }];
    const result = await safeFetch(`http://app.example.com:${origin.port}/`, { resolver, allow });
    expect(result.ok && result.body.toString()).toBe(`host=app.example.com:${origin.port}`);
    expect(calls).toEqual(["app.example.com"]);
  });
});
