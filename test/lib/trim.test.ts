import { describe, expect, it } from "vitest";
import { serializeError } from "../../functions/lib/error-fields.ts";
import { trimEndWhere } from "../../functions/lib/trim.ts";
import { bareHost } from "../../functions/net/address-policy.ts";

/**
 * Trailing runs cut with a loop, not /x+$/: V8 tries that regex from each character of a run that
 * stops short of the end, so a long run inside a string took time quadratic in it (a million took
 * minutes). Each case below holds such a run: on the regex forms they ran past the test timeout.
 */
describe("trimEndWhere", () => {
  it("drops the trailing run the predicate accepts, and nothing else", () => {
    expect(trimEndWhere("example.com...", (c) => c === ".")).toBe("example.com");
    expect(trimEndWhere("example.com", (c) => c === ".")).toBe("example.com");
    expect(trimEndWhere("....", (c) => c === ".")).toBe("");
    expect(trimEndWhere("", (c) => c === ".")).toBe("");
    expect(trimEndWhere("/a/b//", (c) => c === "/")).toBe("/a/b");
    expect(trimEndWhere("Ann Lee | —", (c) => /[\s—|]/.test(c))).toBe("Ann Lee");
  });

  it("a run of a million inside the string is read once", () => {
    const s = `a${".".repeat(1_000_000)}b..`;
    expect(trimEndWhere(s, (c) => c === ".")).toBe(s.slice(0, -2));
  });
});

describe("callers that cut a trailing run of hostile length", () => {
  it("bareHost: a host of a million dots keeps them but the trailing ones", () => {
    const host = `a${".".repeat(1_000_000)}B.`;
    expect(bareHost(host)).toBe(`a${".".repeat(1_000_000)}b`);
    expect(bareHost("[::1]")).toBe("::1");
    expect(bareHost("Example.COM.")).toBe("example.com");
  });

  it("a data exception's quoted value is redacted however often the message says ': \"'", () => {
    const value = ': "x'.repeat(300_000);
    const err = Object.assign(new Error(`invalid input syntax for type uuid: "${value}"`), { code: "22P02" });
    expect(serializeError(err).message).toBe('invalid input syntax for type uuid: "[redacted]"');
    // As before: a message without a closing quote at the end keeps its text; hex bytes go.
    const open = Object.assign(new Error(`bad value: "abc`), { code: "22P02" });
    expect(serializeError(open).message).toBe('bad value: "abc');
    const bytes = Object.assign(new Error("invalid byte sequence for encoding UTF8: 0xc3 0x28"), { code: "22021" });
    expect(serializeError(bytes).message).toBe("invalid byte sequence for encoding UTF8: [redacted]");
    const other = Object.assign(new Error('relation "x" does not exist'), { code: "42P01" });
    expect(serializeError(other).message).toBe('relation "x" does not exist');
  });
});
