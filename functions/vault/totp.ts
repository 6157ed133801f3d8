import { Secret, TOTP } from "otpauth";
import { trimEndWhere } from "../lib/trim.ts";
import type { TotpSpec } from "./providers/types.ts";

/**
 * One-time codes of a credential (RFC 6238, computed by `otpauth`). A seed comes from an operator
 * as a bare base32 secret or an `otpauth://totp/...` URI; a code is made at fill time. Messages
 * never quote the seed.
 */

const ALGORITHMS = ["SHA1", "SHA256", "SHA512"] as const;
/** A code with less than this left before its window closes is not typed: the next window's is. */
export const TOTP_MIN_REMAINING_MS = 3_000;
const MIN_PERIOD = 10;
const MAX_PERIOD = 300;

export class TotpFormatError extends Error {
  override name = "TotpFormatError";
}

/** Upper-case base32 without padding or the spaces authenticator apps group it with; null if not base32. */
function base32Secret(raw: string): string | null {
  const s = trimEndWhere(raw.replace(/[\s-]/g, ""), (c) => c === "=").toUpperCase();
  // 16 characters = 80 bits, the least sites hand out (RFC 4226 asks for at least 128).
  if (!/^[A-Z2-7]{16,1024}$/.test(s)) return null;
  // Lengths 1, 3 and 6 (mod 8) are not a whole number of bytes.
  if ([1, 3, 6].includes(s.length % 8)) return null;
  return s;
}

const SECRET_PROBLEM = "is not a base32 secret of at least 16 characters";

/** Parses a `--totp` value: a base32 secret (SHA1, 6 digits, 30 s) or an otpauth://totp/ URI. */
export function parseTotp(value: string): TotpSpec {
  const v = value.trim();
  if (!/^otpauth:/i.test(v)) {
    const secret = base32Secret(v);
    if (!secret) throw new TotpFormatError(`the TOTP seed ${SECRET_PROBLEM}, nor an otpauth://totp/ URI`);
    return { secret, algorithm: "SHA1", digits: 6, period: 30 };
  }
  if (!URL.canParse(v)) throw new TotpFormatError("the otpauth URI does not parse");
  const url = new URL(v);
  const type = url.hostname.toLowerCase();
  if (type === "hotp")
    throw new TotpFormatError("the otpauth URI is for HOTP (counter-based) codes; only otpauth://totp/ is supported");
  if (type !== "totp") throw new TotpFormatError("the otpauth URI must be otpauth://totp/...");
  const q = url.searchParams;
  const secret = base32Secret(q.get("secret") ?? "");
  if (!secret) throw new TotpFormatError(`the otpauth URI's secret ${SECRET_PROBLEM}`);
  const algorithm = (q.get("algorithm") ?? "SHA1").toUpperCase();
  if (!(ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new TotpFormatError(`the otpauth URI's algorithm must be one of ${ALGORITHMS.join(", ")}`);
  }
  const digits = integerParam(q.get("digits"), 6);
  if (digits === null || digits < 6 || digits > 8) throw new TotpFormatError("the otpauth URI's digits must be 6, 7 or 8");
  const period = integerParam(q.get("period"), 30);
  if (period === null || period < MIN_PERIOD || period > MAX_PERIOD) {
    throw new TotpFormatError(`the otpauth URI's period must be whole seconds from ${MIN_PERIOD} to ${MAX_PERIOD}`);
  }
  return { secret, algorithm: algorithm as TotpSpec["algorithm"], digits, period };
}

function integerParam(value: string | null, fallback: number): number | null {
  if (value === null || value === "") return fallback;
  return /^\d{1,4}$/.test(value) ? Number(value) : null;
}

/** The code of the window that contains `at` (RFC 6238 with T0 = 0). */
export function totpAt(spec: TotpSpec, at: Date): string {
  return TOTP.generate({
    secret: Secret.fromBase32(spec.secret),
    algorithm: spec.algorithm,
    digits: spec.digits,
    period: spec.period,
    timestamp: at.getTime(),
  });
}

export interface TotpCode {
  code: string;
  /** When the code's window opens: `now`, or the next window's start when the current one was closing. */
  validFrom: Date;
  validUntil: Date;
}

/**
 * The code to type at `now`: the current window's, or, when that window has under 3 s left (a
 * code typed then may reach the site after it expired), the next window's, valid from its start.
 */
export function totpCode(spec: TotpSpec, now: Date, minRemainingMs = TOTP_MIN_REMAINING_MS): TotpCode {
  const periodMs = spec.period * 1000;
  const t = now.getTime();
  const windowEnd = (Math.floor(t / periodMs) + 1) * periodMs;
  if (windowEnd - t >= minRemainingMs) return { code: totpAt(spec, now), validFrom: now, validUntil: new Date(windowEnd) };
  const next = new Date(windowEnd);
  return { code: totpAt(spec, next), validFrom: next, validUntil: new Date(windowEnd + periodMs) };
}

/** totpCode, having waited (with `sleep`) until the code's window has opened. */
export async function totpCodeForFill(
  spec: TotpSpec,
  clock: { now(): Date },
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<string> {
  const now = clock.now();
  const c = totpCode(spec, now);
  const wait = c.validFrom.getTime() - now.getTime();
  if (wait > 0) await sleep(wait);
  return c.code;
}
