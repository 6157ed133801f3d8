import { describe, expect, it } from "vitest";
import { normaliseDomain } from "../../functions/vault/domains.ts";
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
