import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { createWebhookDispatcher } from "../../containers/webhooks/dispatcher.ts";
import type { LogFields, Logger } from "../../functions/lib/logger.ts";
import { fileBlobStore } from "../../functions/storage/blob-store.ts";
import { builtinVaultService } from "../../functions/vault/builtin-vault.service.ts";
import { createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { formatItemId } from "../../functions/vault/item-ref.ts";
import type { TotpSpec } from "../../functions/vault/providers/types.ts";
import { runCredentials } from "../../functions/vault/run-credentials.ts";
import { vaultService } from "../../functions/vault/vault.service.ts";
import { webhookDeliveries } from "../../schema/tables/index.ts";
import { call, idx, type ScriptStep, sequence, stateText } from "../agent/loop/harness.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type Json, type RunHarness, readSse, startRunHarness } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";
import { BANK_HOST, PHISH_HOST, startVaultSite, type VaultSite } from "../helpers/vault-site.ts";
import { makeTestPki, type Receiver, startReceiver } from "../webhooks/receiver.ts";

/**
 * Issue [3 of 6], "Credentials in runs", end to end with real parts: the run API on Postgres, the
 * queue, a worker, real Chromium, the scripted model behind the real OpenAI provider, the built-in
 * vault sealed with a real key, a webhook delivered by the real dispatcher. The agent first tries
 * to fill the user name on a look-alike phishing site (refused), then logs into the bank with the
 * stored user name, password and a TOTP code computed at fill time.
 *
 * Then every byte the run produced is searched for the secrets: the model's requests, every API
 * answer (run, steps, artifacts, recording and its frames), the SSE stream, the webhook, the step
 * rows and every other table (encryption at rest), the artifact directory, and the log output.
 */

const USERNAME = `ada-${randomBytes(5).toString("hex")}`;
const PASSWORD = `pw-${randomBytes(8).toString("hex")}!&"<>`;
const TOTP: TotpSpec = { secret: "KRUGKIDROVUWG2ZAMJZG653OEBTG66BA", algorithm: "SHA1", digits: 6, period: 30 };
const SECRETS = { username: USERNAME, password: PASSWORD, seed: TOTP.secret };

/** The driver: real Postgres where the run has one, PGlite otherwise. */
const drivers = driverCases(["pg"]).length > 0 ? driverCases(["pg"]) : driverCases(["pglite"]);

/** Every spelling of `value` a page, URL or JSON document could carry it in. */
function spellings(value: string): string[] {
  const html = value.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "#39" }[c]};`);
  return [
    ...new Set([
      value,
      encodeURIComponent(value),
      new URLSearchParams({ v: value }).toString().slice(2),
      html,
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString("base64"),
    ]),
  ];
}

/** Where in `sources` any spelling of any secret occurs ("<source>: <secret>"). */
function leaks(sources: Record<string, string | Buffer>, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [where, content] of Object.entries(sources)) {
    const text = typeof content === "string" ? content : content.toString("latin1");
    for (const [name, secret] of Object.entries(secrets)) {
      for (const s of spellings(secret)) if (text.includes(s)) found.push(`${where}: ${name} (as ${JSON.stringify(s)})`);
    }
  }
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe.skipIf(!isExecutable(CHROME)).each(drivers)("a run logs in with vault credentials on $driver", ({ open }) => {
  let database: TestDatabase;
  let h: RunHarness;
  let site: VaultSite;
  let receiver: Receiver;
  let dataDir: string;
  const logs: string[] = [];
  const errors: string[] = [];
  const record =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      logs.push(`${level} ${msg} ${inspect(fields ?? {}, { depth: 8 })}`);
    };
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const pki = makeTestPki();

  // Filled by the run in beforeAll; the tests read them.
  const answers: Record<string, string | Buffer> = {};
  let runId = "";
  let key = "";
  let itemId = "";
  let sse: Json[] = [];

  beforeAll(async () => {
    database = await open();
    dataDir = mkdtempSync(path.join(tmpdir(), "osprey-vault-run-"));
    site = await startVaultSite({ username: USERNAME, password: PASSWORD, totp: TOTP });
    receiver = await startReceiver(pki, () => ({ status: 204 }));
    const keyring = createKeyring(new VaultKey(randomBytes(32)));
    h = await startRunHarness(database.db, {
      logger,
      heartbeatMs: 300,
      blobs: fileBlobStore(path.join(dataDir, "artifacts")),
      browserHosts: [
        { host: BANK_HOST, port: site.port },
        { host: PHISH_HOST, port: site.port },
      ],
      allowPrivateHosts: [{ host: "127.0.0.1", port: receiver.port }],
      resolver: site.resolver,
      credentials: runCredentials({ db: database.db, keyring, providers: {} }),
      vault: ({ clock }) => vaultService({ db: database.db, clock, logger, keyring, providers: {} }),
    });
    h.startWorker();
    const k = await h.newKey({ plan: "pro" });
    key = k.key;
    const item = await builtinVaultService({ db: database.db, clock: h.ctx.clock, keyring }).addItem(k.accountId, {
      vaultName: "Personal",
      label: "My bank",
      domains: ["bank.test"],
      fields: [
        { fieldId: "username", value: USERNAME },
        { fieldId: "password", value: PASSWORD },
      ],
      totp: TOTP,
    });
    itemId = formatItemId(item);
    // Another account's item on the same site, which this run must never be offered.
    const other = await h.newKey();
    await builtinVaultService({ db: database.db, clock: h.ctx.clock, keyring }).addItem(other.accountId, {
      vaultName: "Personal",
      label: "Someone else's bank",
      domains: ["bank.test"],
      fields: [{ fieldId: "password", value: "not-yours" }],
      totp: null,
    });

    const bank = (p: string) => site.url(BANK_HOST, p);
    const lastResult = (t: Parameters<ScriptStep>[0]) => t.lastToolResults[0] ?? { text: "", isError: false };
    const steps: ScriptStep[] = [
      // On the look-alike site: the fill is refused before any value is read.
      (t) => call("fill_credential", { index: idx(t, /Username \[(\d+) textbox/), credential: 1, field: "username" }),
      (t) => {
        const r = lastResult(t);
        // (The OpenAI wire has no error flag: a failed tool's text starts "Error:".)
        if (!/not one of credential 1's domains/.test(r.text))
          throw new Error(`the phishing fill was not refused: ${JSON.stringify(r)}`);
        return call("navigate", { url: bank("/login") });
      },
      (t) => call("fill_credential", { index: idx(t, /Username \[(\d+) textbox/), credential: 1, field: "username" }),
      (t) => call("fill_credential", { index: idx(t, /Password \[(\d+) textbox:password/), credential: 1, field: "password" }),
      (t) => call("click", { index: idx(t, /\[(\d+) button\]Sign in/) }),
      (t) => {
        if (!stateText(t).includes("Two-step verification")) throw new Error(`not at the code step:\n${stateText(t)}`);
        return call("fill_credential", { index: idx(t, /Code \[(\d+) textbox/), credential: 1, field: "totp" });
      },
      (t) => call("click", { index: idx(t, /\[(\d+) button\]Verify/) }),
      (t) => {
        const state = stateText(t);
        if (!state.includes("Welcome,")) throw new Error(`not signed in:\n${state}`);
        return call("done", { success: true, result: { signed_in: true, balance: "1,234.56 EUR" } });
      },
    ];
    h.model.setScript(sequence(steps, errors));

    const res = await h.ctx.postJson(key, "/v1/automation/run-sse", {
      url: site.url(PHISH_HOST, "/login"),
      goal: "Sign in to my bank and tell me my balance",
      use_vault: true,
      credential_item_ids: [itemId],
      webhook_url: receiver.url,
      capture_config: { screenshots: true, html: true, elements: true, snapshots: true, recording: true },
    });
    answers.sse = await res.clone().text();
    sse = await readSse(res);
    runId = String(sse.find((e) => typeof e.run_id === "string")?.run_id ?? "");
    await h.ctx.runs.service.waitTerminal(runId, 60_000);

    // Every API answer about the run, its artifacts and its recording.
    const get = async (p: string) => {
      const r = await h.ctx.call(key, p);
      const body = Buffer.from(await r.arrayBuffer());
      answers[`GET ${p}`] = body;
      return { status: r.status, body };
    };
    await get(`/v1/runs/${runId}`);
    await get(`/v1/runs/${runId}?screenshots=base64`);
    await get("/v1/runs");
    const stepsBody = JSON.parse((await get(`/v1/runs/${runId}/steps`)).body.toString()) as Json;
    for (const s of stepsBody.steps as Json[]) {
      for (const kind of ["screenshot", "html", "elements"]) await get(`/v1/runs/${runId}/steps/${s.step}/${kind}`);
    }
    const recording = JSON.parse((await get(`/v1/runs/${runId}/recording`)).body.toString()) as Json;
    const frames = (recording.video?.frames ?? []) as Json[];
    for (let i = 1; i <= frames.length; i++) await get(`/v1/runs/${runId}/recording/frames/${i}`);
    await get("/v1/vault/items");

    // The webhook, delivered by the real dispatcher.
    const dispatcher = createWebhookDispatcher({
      db: database.db,
      logger,
      allowPrivateHosts: [{ host: "127.0.0.1", port: receiver.port }],
      ca: pki.caCert,
      schedule: [50, 100],
      timeoutMs: 5000,
    });
    for (let i = 0; i < 100 && receiver.requests.length === 0; i++) {
      await dispatcher.runOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
    answers.webhooks = receiver.requests.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`).join("\n");
  }, 180_000);

  afterAll(async () => {
    await h?.close();
    await site?.close();
    await receiver?.close();
    await database?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("logs in: the phishing fill is refused, the bank gets the password and a valid TOTP code", async () => {
    expect(errors).toEqual([]);
    const run = JSON.parse(String(answers[`GET /v1/runs/${runId}`])) as Json;
    expect(run.status, JSON.stringify(run)).toBe("COMPLETED");
    expect(run.result).toEqual({ signed_in: true, balance: "1,234.56 EUR" });
    expect(site.harvested).toEqual([]);
    expect(site.logins).toBe(1);
    expect(site.codes.filter((c) => c.ok)).toHaveLength(1);
    const steps = (JSON.parse(String(answers[`GET /v1/runs/${runId}/steps`])) as Json).steps as Json[];
    const fills = steps.filter((s) => s.action.name === "fill_credential");
    expect(fills).toHaveLength(4);
    expect(fills.map((s) => s.ok)).toEqual([false, true, true, true]);
    expect(steps[0]?.message).toMatch(/domain/i);
    // The step records name the credential and field, never a value.
    expect(fills.map((s) => s.action.args.field)).toEqual(["username", "username", "password", "totp"]);
    // The model was offered this item by label, domains and field names, and nothing of the other account's.
    const system = JSON.stringify(h.model.turns[0]?.messages[0]?.text ?? "");
    expect(system).toContain("My bank");
    expect(system).toContain("bank.test");
    expect(system).toMatch(/password/);
    expect(system).not.toContain("Someone else's bank");
    expect(h.model.turns[0]?.tools.map((t) => t.name)).toContain("fill_credential");
  });

  it("no secret in the model's requests (values and the TOTP codes typed)", () => {
    const codes = Object.fromEntries(site.codes.map((c, i) => [`code ${i}`, c.code]));
    const requests = Object.fromEntries(h.model.requests.map((r, i) => [`model request ${i + 1}`, JSON.stringify(r.body)]));
    expect(Object.keys(requests).length).toBeGreaterThanOrEqual(8);
    expect(leaks(requests, { ...SECRETS, ...codes })).toEqual([]);
  });

  it("no secret in any API answer, the SSE stream or the webhook", () => {
    expect(sse.length).toBeGreaterThan(3);
    expect(String(answers.webhooks)).toContain(runId);
    expect(leaks(answers, SECRETS)).toEqual([]);
  });

  it("no secret in the database (step rows, events, deliveries, vault rows: encryption at rest)", async () => {
    const tables = (
      (await database.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      )) as unknown as { rows: { table_name: string }[] }
    ).rows.map((r) => r.table_name);
    expect(tables).toEqual(expect.arrayContaining(["runs", "run_steps", "vault_items", "webhook_deliveries"]));
    const dump: Record<string, string> = {};
    for (const t of tables) {
      const rows = (await database.db.execute(sql.raw(`select row_to_json(x)::text as j from "${t}" x`))) as unknown as {
        rows: { j: string }[];
      };
      dump[t] = rows.rows.map((r) => r.j).join("\n");
    }
    expect(dump.vault_items).toContain("My bank");
    expect(dump.run_steps?.length ?? 0).toBeGreaterThan(0);
    expect((await database.db.select().from(webhookDeliveries)).length).toBeGreaterThan(0);
    expect(leaks(dump, SECRETS)).toEqual([]);
  });

  it("no secret in the artifact directory (screenshots, HTML snapshots, element lists, the recording)", () => {
    const files = filesUnder(dataDir);
    // Per step a screenshot, an HTML snapshot and an element list, and the recording's frames.
    expect(files.length).toBeGreaterThan(3 * 8);
    const contents = Object.fromEntries(files.map((f) => [path.relative(dataDir, f), readFileSync(f)]));
    expect(leaks(contents, SECRETS)).toEqual([]);
  });

  it("no secret in the server's log output", () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(leaks({ logs: logs.join("\n") }, SECRETS)).toEqual([]);
  });
});
