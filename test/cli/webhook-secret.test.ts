import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsCommand } from "../../containers/cli/commands/accounts.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createServices } from "../../functions/services/index.ts";
import { signWebhook, verifyWebhook } from "../../functions/webhooks/signing.ts";
import { webhookSecretService } from "../../functions/webhooks/webhook-secret.service.ts";
import { migratedDataDir } from "../helpers/data-dir.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { killChildren, runCli } from "../helpers/process.ts";

/**
 * `osprey accounts webhook-secret`. The command runs in-process against each test database (the
 * services built the way the runtime builds them, plus the webhook secret service); one test runs
 * the real `osprey` process.
 */

describe.each(driverCases(["pglite", "pg"]))("accounts webhook-secret ($driver)", ({ open }) => {
  let t: TestDatabase;
  let services: ReturnType<typeof createServices> & { webhookSecrets: ReturnType<typeof webhookSecretService> };
  let accountId: string;

  beforeAll(async () => {
    t = await open();
    const deps = { db: t.db, clock: systemClock, ids: defaultIds };
    services = { ...createServices(deps), webhookSecrets: webhookSecretService(deps) };
    accountId = (await services.accounts.create({ plan: "free" })).id;
  });
  afterAll(() => t?.dispose());

  async function run(...args: string[]): Promise<string> {
    const lines: string[] = [];
    await accountsCommand(services, args, (l) => lines.push(l));
    return lines.join("\n");
  }

  it("shows the secret, making it on first use, and the same one afterwards", async () => {
    const first = await run("webhook-secret", accountId);
    expect(first).toMatch(new RegExp(`^account ${accountId} webhook secret:\\nwhsec_[A-Za-z0-9+/]{32}$`));
    const json = JSON.parse(await run("webhook-secret", accountId, "--json"));
    expect(json).toEqual({ account_id: accountId, webhook_secret: first.split("\n")[1], rotated: false });
  });

  it("--rotate replaces it; the new one signs and the old one no longer verifies", async () => {
    const old = JSON.parse(await run("webhook-secret", accountId, "--json")).webhook_secret as string;
    const rotated = JSON.parse(await run("webhook-secret", accountId, "--rotate", "--json"));
    expect(rotated).toMatchObject({ account_id: accountId, rotated: true });
    expect(rotated.webhook_secret).not.toBe(old);
    expect(JSON.parse(await run("webhook-secret", accountId, "--json")).webhook_secret).toBe(rotated.webhook_secret);
    const ts = Math.floor(Date.now() / 1000);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(ts) };
    const signature = signWebhook(rotated.webhook_secret, "msg_1", ts, "{}");
    expect(verifyWebhook(rotated.webhook_secret, { ...headers, "webhook-signature": signature }, "{}").ok).toBe(true);
    expect(verifyWebhook(old, { ...headers, "webhook-signature": signature }, "{}").ok).toBe(false);
    expect(await run("webhook-secret", accountId, "--rotate")).toMatch(/has a new webhook secret.*\nwhsec_/);
  });

  it("an unknown account is NOT_FOUND; a missing account id is a usage error", async () => {
    await expect(run("webhook-secret", "acct_missing")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(run("webhook-secret")).rejects.toThrow(/usage: accounts webhook-secret <account_id>/);
    await expect(run("webhook-secret", accountId, "--bogus")).rejects.toThrow();
  });
});

describe("osprey accounts webhook-secret (process)", () => {
  const dir = migratedDataDir("osprey-cli-whsec-");
  afterAll(async () => {
    await killChildren();
    dir.cleanup();
  });

  it("is listed in the usage text", async () => {
    const help = await runCli(["--help"], {});
    expect(help.stdout).toContain("osprey accounts webhook-secret <account_id> [--rotate] [--json]");
  });

  it("prints the secret from the real CLI", async () => {
    const env = { OSPREY_DATA_DIR: dir.dir };
    const created = await runCli(["keys", "create", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout).account_id as string;
    const shown = await runCli(["accounts", "webhook-secret", account, "--json"], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      account_id: account,
      rotated: false,
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
  }, 180_000);
});
