/**
 * The hostile values the fuzzer (fuzz.ts) varies requests with: strings that have broken servers,
 * JSON of the wrong kind or size, raw percent-encodings, path values, bodies, keys and content
 * types. Data, and the seeded choices over it; fuzz.ts builds requests from it.
 */
export { mulberry32 as prng } from "./prng.ts";

export type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

// --- hostile values ----------------------------------------------------------------------------

/** Strings that have broken servers: control characters, bad UTF-16, encodings, traversal, number-likes. */
export function hostileStrings(big: boolean): string[] {
  return [
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\udc00\ud800",
    "\r\n",
    "a\r\nX-Injected: 1",
    "%00",
    "%ED%A0%80",
    "%zz",
    "%",
    "..",
    "../../../etc/passwd",
    "%2F",
    "%2e%2e%2f",
    "𝓤ñí©ødé 🦅 中文 العربية",
    "\u202e\u200b\ufeff",
    "",
    " ",
    "\t",
    "null",
    "NaN",
    "Infinity",
    "-Infinity",
    "-1",
    "0",
    "-0",
    "1e309",
    "99999999999999999999999999",
    "9007199254740993",
    "0x10",
    // Dates that parse but that Postgres cannot compare with a timestamptz (year 0000, past 9999 in UTC).
    "0000-01-01",
    "9999-12-31T23:59-23:59",
    "true",
    "'; drop table runs; --",
    "<script>alert(1)</script>",
    "\\",
    '"',
    "x".repeat(10_000),
    ...(big ? ["y".repeat(1_000_000)] : ["y".repeat(70_000)]),
    "http://127.0.0.1:9/\u0000",
    "http://127.0.0.1:9/%00",
    "https://127.0.0.1:9/a\ud800",
    "http://[::1]:9/",
    "file:///etc/passwd",
    "javascript:alert(1)",
  ];
}

/** JSON values of the wrong kind or size for almost any field. */
export const HOSTILE_JSON: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.000001,
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 63),
  [],
  {},
  [[[]]],
  { a: 1 },
  ["\u0000"],
  { "\u0000": "\ud800" },
  { "\ud800": 1 },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
];

/** `depth` nested arrays or objects, built as text (JSON.stringify of such a value could overflow the stack). */
export const deepJson = (depth: number, kind: "array" | "object") =>
  kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Percent-encoded query or path text that no encoder would produce. */
export const RAW_ENCODED = [
  "%00",
  "%ED%A0%80",
  "%ED%BF%BF",
  "%C0%AF",
  "%FF%FE",
  "%zz",
  "%",
  "%%",
  "%2",
  "a%00b",
  "%0D%0A",
  "%E2%80%AE",
];

/** Values for a path parameter: traversal, encoded slashes, unicode, NUL, lengths. */
export const RAW_PATH_VALUES = [
  "..",
  "%2e%2e",
  "..%2F..%2Fetc%2Fpasswd",
  "%2F",
  "a%2Fb",
  encodeURIComponent("𝓤ñí©ødé"),
  encodeURIComponent("run_\u202e"),
  "%00",
  "run_%00",
  "%ED%A0%80",
  "run_%ED%A0%80",
  "%C0%AE%C0%AE",
  "-1",
  "0",
  "99999999999999999999",
  "1e309",
  "NaN",
  "Infinity",
  "run_00000000000000000000000000",
  "run_01jd8q3x6f4b2c9e1h7k5m3n8p",
  "x".repeat(5000),
  "%20",
  "%0D%0A",
  "'",
  "%22",
  "*",
  "~",
];

/** Encodes a string for a URL; lone surrogates (which encodeURIComponent refuses) become %ED%xx%xx, as a hostile client would send. */
export function rawEncode(s: string): string {
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%ED%${(0xa0 | ((code >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** Bytes that are not UTF-8, wrapped in a JSON string. */
export const NOT_UTF8: Uint8Array[] = [
  [0xff, 0xfe],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x00],
].map((bytes) => new Uint8Array(bytes));

export const ODD_KEYS = [
  "",
  " ",
  "osk_",
  "osk_\u00ff\u00fe\u00e9",
  "\u00ff".repeat(64),
  `osk_${"a".repeat(10_000)}`,
  "osk_%00",
  "' or 1=1 --",
];
export const ODD_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/jsonx",
  "application/vnd.api+json",
  "*/*",
  "application/xml",
];
export const RAW_BODIES = [
  "",
  "{",
  '{"a":}',
  "[1,]",
  "NaN",
  "'single'",
  "null",
  "true",
  "0",
  '"string"',
  "[]",
  "\u0000",
  '{"a":1}{"b":2}',
  '{"\\u0000":1}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  "\ufeff{}",
];
