import { describe, expect, it } from "vitest";
import { credentialAllowedOn, normaliseDomain, registrableDomain } from "../../functions/vault/domains.ts";
import { formatItemId, parseItemId } from "../../functions/vault/item-ref.ts";

describe("normaliseDomain", () => {
  it.each([
    ["example.com", "example.com"],
    ["  Example.COM. ", "example.com"],
    ["https://Login.Example.com:8443/path?q=1#x", "login.example.com"],
    ["http://example.com", "example.com"],
    ["example.com:8080/login", "example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["localhost", "localhost"],
    ["127.0.0.1", "127.0.0.1"],
    ["a-b.co.uk", "a-b.co.uk"],
  ])("%j → %j", (input, expected) => {
    expect(normaliseDomain(input)).toBe(expected);
  });

  it.each([
    "",
    "com",
    "*.example.com",
    "bad_domain.com",
    "-example.com",
    "exa mple.com",
    "ftp://example.com",
    "javascript:alert(1)",
    "https://user:pass@example.com",
    "[::1]",
    "example.123",
    "a..b.com",
    `${"a".repeat(64)}.com`,
  ])("refuses %j", (input) => {
    expect(normaliseDomain(input)).toBeNull();
  });
});

describe("item ids (cred:<connection_id>:<vault_name>:<item_id>)", () => {
  it("round-trips, a vault name with colons included", () => {
    for (const ref of [
      { connectionId: "vc_1", vaultName: "Personal", itemId: "it_1" },
      { connectionId: "vc_1", vaultName: "Team: Ops", itemId: "abc" },
    ]) {
      expect(parseItemId(formatItemId(ref))).toEqual(ref);
    }
    expect(formatItemId({ connectionId: "vc_1", vaultName: "V", itemId: "i" })).toBe("cred:vc_1:V:i");
  });

  it.each(["", "vc_1:V:i", "cred:", "cred:vc_1", "cred:vc_1:i", "cred::V:i", "cred:vc_1::i", "cred:vc_1:V:"])(
    "refuses %j",
    (value) => {
      expect(parseItemId(value)).toBeNull();
    },
  );
});

describe("credentialAllowedOn: a page's registrable domain must be one of the item's", () => {
  it.each([
    [["bank.test"], "https://bank.test/login", true],
    [["bank.test"], "https://login.bank.test/", true],
    [["login.bank.test"], "https://www.bank.test/", true], // same registrable domain (bank.test)
    [["bank.example.co.uk"], "https://secure.example.co.uk/", true], // eTLD+1 is example.co.uk
    [["bank.test"], "https://bank-login.test/", false], // look-alike
    [["bank.test"], "https://bank.test.evil.test/", false], // the item's name as a subdomain of another site
    [["bank.test"], "https://evilbank.test/", false],
    [["alice.github.io"], "https://bob.github.io/", false], // a private public suffix: different sites
    [["alice.github.io"], "https://alice.github.io/x", true],
    [["example.co.uk"], "https://other.co.uk/", false],
    [["127.0.0.1"], "http://127.0.0.1:8080/login", true],
    [["127.0.0.1"], "http://127.0.0.2/", false],
    [["localhost"], "http://localhost:3000/", true],
    [["bank.test"], "ftp://bank.test/", false],
    [["bank.test"], "javascript:alert(1)", false],
    [["bank.test"], "not a url", false],
    [["bank.test"], "about:blank", false],
    [["BANK.test."], "https://Bank.Test./", true],
    [[], "https://bank.test/", false],
  ])("%j on %s → %s", (domains, url, allowed) => {
    expect(credentialAllowedOn(domains, url)).toBe(allowed);
  });

  it("registrableDomain keeps IP addresses and bare suffixes whole", () => {
    expect(registrableDomain("a.b.bank.test")).toBe("bank.test");
    expect(registrableDomain("10.0.0.1")).toBe("10.0.0.1");
    expect(registrableDomain("co.uk")).toBe("co.uk");
    expect(registrableDomain("[::1]")).toBe("[::1]");
  });
});
