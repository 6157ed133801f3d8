import { describe, expect, it } from "vitest";
import {
  capItems,
  changedDomains,
  fromCdpCookie,
  groupByDomain,
  MAX_COOKIES_PER_DOMAIN,
  toCookieParam,
} from "../../containers/browser/profile-data.ts";
import type { DomainState, ProfileCookie } from "../../functions/profiles/profile-state.ts";

const cookie = (over: Partial<ProfileCookie> = {}): ProfileCookie => ({
  name: "sid",
  value: "v1",
  domain: ".example.com",
  path: "/",
  expires: -1,
  httpOnly: true,
  secure: true,
  ...over,
});
const state = (domain: string, cookies: ProfileCookie[], storage: [string, [string, string][]][] = []): DomainState => ({
  domain,
  cookies,
  localStorage: storage.map(([origin, items]) => ({ origin, items })),
});

describe("changedDomains", () => {
  const loaded = [
    state(
      "example.com",
      [cookie(), cookie({ name: "b", domain: "www.example.com", value: "2" })],
      [["https://example.com", [["k", "v"]]]],
    ),
    state("other.org", [cookie({ domain: "other.org" })]),
  ];

  it("finds nothing when only the order differs", () => {
    const now = [
      state("other.org", [cookie({ domain: "other.org" })]),
      state(
        "example.com",
        [cookie({ name: "b", domain: "www.example.com", value: "2" }), cookie()],
        [["https://example.com", [["k", "v"]]]],
      ),
    ];
    expect(changedDomains(loaded, now)).toEqual([]);
  });

  it("treats attributes Chromium fills in (priority, source scheme and port) and sub-second expiry as the same", () => {
    const a = [state("x.com", [cookie({ domain: "x.com", expires: 1_900_000_000 })])];
    const b = [
      state("x.com", [
        cookie({ domain: "x.com", expires: 1_900_000_000.25, priority: "Medium", sourceScheme: "Secure", sourcePort: 443 }),
      ]),
    ];
    expect(changedDomains(a, b)).toEqual([]);
  });

  it("names only the domain whose cookie value, attribute or storage changed", () => {
    const valueChanged = [loaded[0] as DomainState, state("other.org", [cookie({ domain: "other.org", value: "new" })])];
    expect(changedDomains(loaded, valueChanged)).toEqual([{ domain: "other.org", state: valueChanged[1] }]);
    const flagChanged = [loaded[0] as DomainState, state("other.org", [cookie({ domain: "other.org", httpOnly: false })])];
    expect(changedDomains(loaded, flagChanged).map((c) => c.domain)).toEqual(["other.org"]);
    const storageChanged = [
      state("example.com", (loaded[0] as DomainState).cookies, [["https://example.com", [["k", "v2"]]]]),
      loaded[1] as DomainState,
    ];
    expect(changedDomains(loaded, storageChanged).map((c) => c.domain)).toEqual(["example.com"]);
  });

  it("tells a domain cookie from a host-only one and a partitioned one from an unpartitioned one", () => {
    const a = [state("x.com", [cookie({ domain: ".x.com" })])];
    expect(changedDomains(a, [state("x.com", [cookie({ domain: "x.com" })])])).toHaveLength(1);
    const pk = { topLevelSite: "https://top.com", hasCrossSiteAncestor: true };
    expect(changedDomains(a, [state("x.com", [cookie({ domain: ".x.com", partitionKey: pk })])])).toHaveLength(1);
  });

  it("answers null for a domain that now has nothing, and the state for a new one", () => {
    const now = [state("example.com", []), state("new.net", [cookie({ domain: "new.net" })])];
    expect(changedDomains(loaded, now)).toEqual([
      { domain: "example.com", state: null },
      { domain: "new.net", state: now[1] },
      { domain: "other.org", state: null },
    ]);
    // Empty origins count as nothing.
    expect(changedDomains([state("a.com", [], [["https://a.com", []]])], [])).toEqual([]);
  });
});

describe("cookie mapping", () => {
  it("passes every attribute to Storage.setCookies, the domain as stored (a leading dot: a domain cookie)", () => {
    const c = cookie({
      expires: 1_900_000_000.5,
      sameSite: "None",
      priority: "High",
      sourceScheme: "Secure",
      sourcePort: 8443,
      partitionKey: { topLevelSite: "https://top.com", hasCrossSiteAncestor: false },
    });
    expect(toCookieParam(c)).toEqual({
      name: "sid",
      value: "v1",
      domain: ".example.com",
      path: "/",
      secure: true,
      httpOnly: true,
      expires: 1_900_000_000.5,
      sameSite: "None",
      priority: "High",
      sourceScheme: "Secure",
      sourcePort: 8443,
      partitionKey: { topLevelSite: "https://top.com", hasCrossSiteAncestor: false },
    });
    expect(toCookieParam(cookie({ expires: -1 }))).not.toHaveProperty("expires");
  });

  it("keeps a session cookie as a session cookie and skips one partitioned under an opaque site", () => {
    const base = {
      name: "a",
      value: "1",
      domain: "x.com",
      path: "/",
      size: 2,
      httpOnly: false,
      secure: false,
      priority: "Medium" as const,
    };
    expect(fromCdpCookie({ ...base, expires: -1, session: true, sourceScheme: "NonSecure", sourcePort: 80 })).toEqual({
      name: "a",
      value: "1",
      domain: "x.com",
      path: "/",
      expires: -1,
      httpOnly: false,
      secure: false,
      priority: "Medium",
      sourceScheme: "NonSecure",
      sourcePort: 80,
    });
    expect(
      fromCdpCookie({ ...base, expires: -1, session: true, sourceScheme: "Secure", sourcePort: 443, partitionKeyOpaque: true }),
    ).toBe(null);
  });
});

describe("caps and grouping", () => {
  it("groups by registrable domain (PSL private suffixes included) and caps cookies per domain", () => {
    const many = Array.from({ length: MAX_COOKIES_PER_DOMAIN + 5 }, (_, i) =>
      cookie({ name: `c${i}`, domain: "www.shop.co.uk" }),
    );
    const { domains, droppedCookies } = groupByDomain(
      [...many, cookie({ domain: "alice.github.io" }), cookie({ domain: "bob.github.io" })],
      [{ origin: "https://app.shop.co.uk", items: [["k", "v"]] }],
    );
    expect(domains.map((d) => d.domain)).toEqual(["alice.github.io", "bob.github.io", "shop.co.uk"]);
    expect(domains[2]?.cookies).toHaveLength(MAX_COOKIES_PER_DOMAIN);
    expect(domains[2]?.localStorage).toEqual([{ origin: "https://app.shop.co.uk", items: [["k", "v"]] }]);
    expect(droppedCookies).toBe(5);
  });

  it("drops the largest localStorage items first and keeps the order of the rest", () => {
    const items: [string, string][] = [
      ["token", "t".repeat(10)],
      ["cache", "c".repeat(1000)],
      ["theme", "dark"],
    ];
    expect(capItems(items, 200)).toEqual({ items: [items[0], items[2]], dropped: 1 });
    expect(capItems(items)).toEqual({ items, dropped: 0 });
  });
});
