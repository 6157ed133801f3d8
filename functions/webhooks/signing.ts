import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, the scheme Svix and the
 * `standardwebhooks` package use). A secret is `whsec_` + base64 of the raw key; the signed content
 * is `${webhook-id}.${webhook-timestamp}.${body}`; the `webhook-signature` header holds one or more
 * space-separated `v1,<base64 HMAC-SHA256>` entries (several during a secret rotation).
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Bytes of key material in a new secret (Svix uses 24; the spec asks for 24 to 64). */
const SECRET_BYTES = 24;
/** Default allowed clock skew when verifying, as in the reference libraries. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new random signing secret, `whsec_` + base64(24 random bytes). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** The raw HMAC key of a secret (the base64 after `whsec_`; a secret without the prefix is read as base64 too). */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  if (key.length === 0) throw new Error("webhook secret has no key material");
  return key;
}

/** The `webhook-signature` value for one message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac("sha256", webhookSecretKey(secret));
  mac.update(`${id}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

export type WebhookVerification = { ok: true } | { ok: false; reason: string };

function header(headers: Headers | Record<string, string | string[] | undefined>, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === wanted) return Array.isArray(v) ? v.join(" ") : v;
  }
  return undefined;
}

/**
 * Checks a received webhook as a receiver would: all three headers present, the timestamp within
 * `toleranceSeconds` of `now` (replay protection), and one `v1` signature matching in constant time.
 * `body` must be the raw request body, exactly as received.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Buffer,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  now: Date = new Date(),
): WebhookVerification {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature" };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: "webhook-timestamp is not a number of seconds" };
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (Math.abs(nowSeconds - seconds) > toleranceSeconds)
    return { ok: false, reason: "webhook-timestamp is outside the tolerance" };
  const expected = Buffer.from(signWebhook(secret, id, seconds, body).slice(3), "base64");
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: "no matching v1 signature" };
}
