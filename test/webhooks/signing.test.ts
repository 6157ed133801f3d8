import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, signWebhook, verifyWebhook, webhookSecretKey } from "../../functions/webhooks/signing.ts";

const body = JSON.stringify({ type: "run.completed", data: { run_id: "run_1", status: "COMPLETED", note: "ünïcødé" } });
const id = "msg_2k9x7c";

describe("webhook signing", () => {
  it("makes whsec_ secrets of 24 random bytes", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSecretKey(a)).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it("signs exactly as the standardwebhooks package does, and that package verifies our signature", () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const ours = signWebhook(secret, id, ts, body);
    expect(ours).toBe(new Webhook(secret).sign(id, new Date(ts * 1000), body));
    const headers = { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": ours };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("verifyWebhook (header names in any case) accepts the package's signatures and rejects tampering, replays and other secrets", () => {
    const secret = newWebhookSecret();
    const now = new Date();
    const ts = Math.floor(now.getTime() / 1000);
    const sig = new Webhook(secret).sign(id, now, body);
    const headers = { "Webhook-Id": id, "webhook-timestamp": String(ts), "webhook-signature": sig };
    expect(verifyWebhook(secret, headers, body)).toEqual({ ok: true });
    expect(verifyWebhook(secret, new Headers(headers), Buffer.from(body))).toEqual({ ok: true });
    expect(verifyWebhook(secret, headers, `${body} `).ok).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), headers, body).ok).toBe(false);
    expect(verifyWebhook(secret, { ...headers, "Webhook-Id": "msg_other" }, body).ok).toBe(false);
    const later = new Date(now.getTime() + 301_000);
    expect(verifyWebhook(secret, headers, body, 300, later)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/tolerance/),
    });
    expect(verifyWebhook(secret, { "webhook-id": id }, body).ok).toBe(false);
  });

  it("accepts any one matching v1 entry among several (secret rotation)", () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const signature = `${signWebhook(oldSecret, id, ts, body)} v2,abc ${signWebhook(newSecret, id, ts, body)}`;
    const headers = { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signature };
    expect(verifyWebhook(newSecret, headers, body)).toEqual({ ok: true });
    expect(verifyWebhook(oldSecret, headers, body)).toEqual({ ok: true });
    expect(new Webhook(newSecret).verify(body, headers)).toBeTruthy();
  });
});
