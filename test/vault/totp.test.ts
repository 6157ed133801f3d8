import { Secret } from "otpauth";
import { describe, expect, it } from "vitest";
import type { TotpSpec } from "../../functions/vault/providers/types.ts";
import { parseTotp, TotpFormatError, totpAt, totpCode, totpCodeForFill } from "../../functions/vault/totp.ts";

/** RFC 6238 appendix B: the seeds are these ASCII strings (20, 32 and 64 bytes). */
const seed = (ascii: string) => new Secret({ buffer: new TextEncoder().encode(ascii).buffer }).base32;
const RFC = {
  SHA1: seed("12345678901234567890"),
  SHA256: seed("12345678901234567890123456789012"),
  SHA512: seed("1234567890123456789012345678901234567890123456789012345678901234"),
};
const spec = (algorithm: TotpSpec["algorithm"]): TotpSpec => ({ secret: RFC[algorithm], algorithm, digits: 8, period: 30 });

/** Appendix B's table: time (s) and the 8-digit codes for SHA1, SHA256, SHA512. */
const VECTORS: [number, string, string, string][] = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

const at = (seconds: number) => new Date(seconds * 1000);

describe("TOTP codes (RFC 6238)", () => {
  it.each(VECTORS)("appendix B at T=%i", (t, sha1, sha256, sha512) => {
    expect(totpAt(spec("SHA1"), at(t))).toBe(sha1);
    expect(totpAt(spec("SHA256"), at(t))).toBe(sha256);
    expect(totpAt(spec("SHA512"), at(t))).toBe(sha512);
  });

  it("with 3 s or more left the current window's code; with under 3 s the next window's, valid from its start", () => {
    const s = spec("SHA1");
    // 1111111111 is 1 s into its window: 29 s left.
    expect(totpCode(s, at(1111111111))).toEqual({
      code: "14050471",
      validFrom: at(1111111111),
      validUntil: at(1111111110 + 30),
    });
    // 59 and 1111111109 are 1 s before their window closes: the next window's code (T=60, T=1111111110).
    expect(totpCode(s, at(59))).toEqual({ code: totpAt(s, at(60)), validFrom: at(60), validUntil: at(90) });
    expect(totpCode(s, at(59)).code).not.toBe("94287082");
    expect(totpCode(s, at(1111111109)).code).toBe(totpAt(s, at(1111111110)));
    expect(totpCode(s, at(1111111109)).code).toBe("14050471");
    // The boundary: exactly 3 s left is enough; 2.999 s is not.
    expect(totpCode(s, new Date(57_000)).validFrom).toEqual(new Date(57_000));
    expect(totpCode(s, new Date(57_001)).validFrom).toEqual(at(60));
    // A window's first instant is its own.
    expect(totpCode(s, at(60))).toEqual({ code: totpAt(s, at(60)), validFrom: at(60), validUntil: at(90) });
  });

  it("totpCodeForFill waits for the next window when the current one is closing, and not otherwise", async () => {
    const s = spec("SHA256");
    const slept: number[] = [];
    const sleep = async (ms: number) => void slept.push(ms);
    expect(await totpCodeForFill(s, { now: () => new Date(58_500) }, sleep)).toBe(totpAt(s, at(60)));
    expect(slept).toEqual([1_500]);
    expect(await totpCodeForFill(s, { now: () => at(1234567890) }, sleep)).toBe("91819424");
    expect(slept).toEqual([1_500]);
  });
});

describe("parseTotp", () => {
  const B32 = "JBSWY3DPEHPK3PXP";

  it("takes a bare base32 secret (spaces, lower case and padding allowed) as SHA1, 6 digits, 30 s", () => {
    expect(parseTotp(B32)).toEqual({ secret: B32, algorithm: "SHA1", digits: 6, period: 30 });
    expect(parseTotp(" jbsw y3dp ehpk 3pxp ")).toEqual({ secret: B32, algorithm: "SHA1", digits: 6, period: 30 });
    expect(parseTotp(`${RFC.SHA1}====`).secret).toBe(RFC.SHA1);
  });

  it("takes an otpauth://totp/ URI with its algorithm, digits and period", () => {
    expect(
      parseTotp(`otpauth://totp/ACME%20Co:john@example.com?secret=${B32}&issuer=ACME%20Co&algorithm=SHA512&digits=8&period=60`),
    ).toEqual({ secret: B32, algorithm: "SHA512", digits: 8, period: 60 });
    expect(parseTotp(`otpauth://totp/x?secret=${B32.toLowerCase()}&algorithm=sha256`)).toEqual({
      secret: B32,
      algorithm: "SHA256",
      digits: 6,
      period: 30,
    });
    expect(parseTotp(`OTPAUTH://TOTP/x?secret=${B32}&digits=7`).digits).toBe(7);
  });

  it.each([
    ["", /not a base32 secret/],
    ["JBSWY3DP", /not a base32 secret of at least 16 characters/],
    ["JBSWY3DPEHPK3PX1", /not a base32 secret/],
    [`otpauth://hotp/x?secret=${B32}&counter=0`, /HOTP \(counter-based\).*only otpauth:\/\/totp\//],
    [`otpauth://steam/x?secret=${B32}`, /must be otpauth:\/\/totp\//],
    ["otpauth://totp/x?issuer=a", /secret is not a base32 secret/],
    [`otpauth://totp/x?secret=${B32}&algorithm=MD5`, /algorithm must be one of SHA1, SHA256, SHA512/],
    [`otpauth://totp/x?secret=${B32}&digits=5`, /digits must be 6, 7 or 8/],
    [`otpauth://totp/x?secret=${B32}&digits=9`, /digits must be 6, 7 or 8/],
    [`otpauth://totp/x?secret=${B32}&digits=six`, /digits must be 6, 7 or 8/],
    [`otpauth://totp/x?secret=${B32}&period=0`, /period must be whole seconds from 10 to 300/],
    [`otpauth://totp/x?secret=${B32}&period=2.5`, /period must be whole seconds/],
    ["https://example.com/?secret=JBSWY3DPEHPK3PXP", /not a base32 secret/],
  ])("refuses %j with a clear message that never quotes the secret", (value, message) => {
    let error: unknown;
    try {
      parseTotp(value);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TotpFormatError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(B32);
  });
});
