import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getOrCreateWebhookSecret, rotateWebhookSecret } from "../../functions/webhooks/webhook-secret.service.ts";
import { accounts } from "../../schema/tables/index.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

describe.each(driverCases(["pglite", "pg"]))("webhook secrets ($driver)", ({ open }) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await open();
    await t.db.insert(accounts).values([
      { id: "acct_a", plan: "free" },
      { id: "acct_b", plan: "free" },
    ]);
  });
  afterAll(() => t?.dispose());

  it("is made on first use, once, even when callers race", async () => {
    const [before] = await t.db.select().from(accounts).where(eq(accounts.id, "acct_a"));
    expect(before?.webhookSecret).toBeNull();
    const got = await Promise.all(Array.from({ length: 5 }, () => getOrCreateWebhookSecret(t.db, "acct_a")));
    expect(new Set(got).size).toBe(1);
    expect(got[0]).toMatch(/^whsec_/);
    expect(await getOrCreateWebhookSecret(t.db, "acct_a")).toBe(got[0]);
    expect(await getOrCreateWebhookSecret(t.db, "acct_b")).not.toBe(got[0]);
  });

  it("rotates to a new secret that later reads return", async () => {
    const old = await getOrCreateWebhookSecret(t.db, "acct_a");
    const rotated = await rotateWebhookSecret(t.db, "acct_a");
    expect(rotated).not.toBe(old);
    expect(await getOrCreateWebhookSecret(t.db, "acct_a")).toBe(rotated);
  });

  it("answers NOT_FOUND for an unknown account", async () => {
    await expect(getOrCreateWebhookSecret(t.db, "acct_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(rotateWebhookSecret(t.db, "acct_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
