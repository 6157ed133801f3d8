import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../functions/http/compose.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import {
  acceptingContext,
  acceptingRuns,
  expectError,
  expectInvalid,
  fundedKey,
  type Json,
  okJson,
  VALID,
} from "./run-admission-helpers.ts";

/**
 * Run admission through the HTTP API (spec 4.1, 5, 7.1, 7.3, 9.4): the 400 validation of the run
 * body, the 403 entitlement checks and their order, the refusals of features this server does not
 * have yet (vault, profiles, proxies), and the 401s. Runs that pass stay PENDING (no worker).
 */

const ASYNC = "/v1/automation/run-async";

describe.each(driverCases(["pglite"]))("run admission on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;
  let key: string;

  beforeAll(async () => {
    database = await open();
    ctx = acceptingContext(database.db);
    // A pro account with plenty of credits and pending-run room; runs it starts are cancelled.
    ({ key } = await fundedKey(ctx, { plan: "pro", entitlements: ["beta"] }));
  });
  afterAll(() => database?.dispose());

  /** POSTs `body` to /run-async as the pro key; an accepted run is cancelled so the cap never fills. */
  async function postAsync(body: unknown, k = key): Promise<Response> {
    const res = await ctx.postJson(k, ASYNC, body);
    if (res.status === 200) {
      const run = (await res.clone().json()) as Json;
      await ctx.call(k, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    }
    return res;
  }

  describe("400 INVALID_INPUT with details", () => {
    const { url: _u, ...noUrl } = VALID;
    const { goal: _g, ...noGoal } = VALID;
    it.each([
      { name: "url missing", body: noUrl, path: ["url"] },
      { name: "url not absolute", body: { ...VALID, url: "/relative/path" }, path: ["url"] },
      { name: "url without scheme", body: { ...VALID, url: "example.com" }, path: ["url"] },
      { name: "url ftp:", body: { ...VALID, url: "ftp://example.com/file" }, path: ["url"] },
      { name: "goal missing", body: noGoal, path: ["goal"] },
      { name: "goal empty", body: { ...VALID, goal: "" }, path: ["goal"] },
      { name: "goal whitespace only", body: { ...VALID, goal: "  \n\t " }, path: ["goal"] },
      { name: 'browser_profile "fast"', body: { ...VALID, browser_profile: "fast" }, path: ["browser_profile"] },
      { name: "an unknown top-level field", body: { ...VALID, colour: "blue" }, path: [] },
      { name: "agent_config unknown field", body: { ...VALID, agent_config: { speed: 3 } }, path: ["agent_config"] },
      { name: "max_steps 0", body: { ...VALID, agent_config: { max_steps: 0 } }, path: ["agent_config", "max_steps"] },
      { name: "max_steps 201", body: { ...VALID, agent_config: { max_steps: 201 } }, path: ["agent_config", "max_steps"] },
      { name: "max_steps 1.5", body: { ...VALID, agent_config: { max_steps: 1.5 } }, path: ["agent_config", "max_steps"] },
      {
        name: "max_duration_seconds 5",
        body: { ...VALID, agent_config: { max_duration_seconds: 5 } },
        path: ["agent_config", "max_duration_seconds"],
      },
      {
        name: "max_duration_seconds 4000",
        body: { ...VALID, agent_config: { max_duration_seconds: 4000 } },
        path: ["agent_config", "max_duration_seconds"],
      },
      {
        name: "capture_config non-boolean",
        body: { ...VALID, capture_config: { screenshots: "yes" } },
        path: ["capture_config", "screenshots"],
      },
      { name: "webhook_url http://", body: { ...VALID, webhook_url: "http://hooks.example.com/x" }, path: ["webhook_url"] },
      {
        name: "webhook_url with user:pass@",
        body: { ...VALID, webhook_url: "https://user:pass@hooks.example.com/x" },
        path: ["webhook_url"],
      },
      {
        name: "credential_item_ids without use_vault",
        body: { ...VALID, credential_item_ids: ["cred:c1:Personal:i1"] },
        path: ["credential_item_ids"],
      },
      {
        name: "credential_item_ids []",
        body: { ...VALID, use_vault: true, credential_item_ids: [] },
        path: ["credential_item_ids"],
      },
      {
        name: 'credential_item_ids [""]',
        body: { ...VALID, use_vault: true, credential_item_ids: [""] },
        path: ["credential_item_ids", 0],
      },
      {
        name: "credential_item_ids malformed",
        body: { ...VALID, use_vault: true, credential_item_ids: ["cred:c1:Personal:i1", "item-9"] },
        path: ["credential_item_ids", 1],
      },
      { name: "profile_id without use_profile", body: { ...VALID, profile_id: "prof_1" }, path: ["profile_id"] },
      { name: 'profile_id ""', body: { ...VALID, use_profile: true, profile_id: "" }, path: ["profile_id"] },
      {
        name: 'country_code "XX"',
        body: { ...VALID, proxy_config: { country_code: "XX" } },
        path: ["proxy_config", "country_code"],
      },
      { name: 'proxy type "other"', body: { ...VALID, proxy_config: { type: "other" } }, path: ["proxy_config", "type"] },
    ])("$name", async ({ body, path }) => {
      const err = await expectInvalid(await postAsync(body), path);
      expect(err.error.details.every((d: Json) => d.location === "body")).toBe(true);
    });

    it("details carry expected for invalid_type and values for invalid_value (spec 7.1)", async () => {
      const { goal: _g, ...noGoal } = VALID;
      const missing = await expectInvalid(await postAsync(noGoal), ["goal"]);
      expect(missing.error.details[0]).toMatchObject({ code: "invalid_type", expected: "string" });
      const profile = await expectInvalid(await postAsync({ ...VALID, browser_profile: "fast" }), ["browser_profile"]);
      expect(profile.error.details[0]).toMatchObject({ code: "invalid_value", values: ["lite", "stealth"] });
      const country = await expectInvalid(await postAsync({ ...VALID, proxy_config: { country_code: "XX" } }), [
        "proxy_config",
        "country_code",
      ]);
      expect(country.error.details[0].values).toEqual(["US", "GB", "CA", "DE", "FR", "JP", "AU"]);
      expect(country.error.message).toContain("body.proxy_config.country_code");
    });

    it.each([
      { name: "an array", schema: [] as unknown },
      { name: "null", schema: null },
      { name: "a string", schema: "object" },
    ])("output_schema that is $name → 400", async ({ schema }) => {
      await expectInvalid(await postAsync({ ...VALID, output_schema: schema }), ["output_schema"]);
    });

    it("names the unknown top-level field", async () => {
      const err = await expectInvalid(await postAsync({ ...VALID, colour: "blue" }), []);
      expect(JSON.stringify(err.error.details)).toContain("colour");
    });

    it.each([
      { name: "patternProperties", schema: { type: "object", patternProperties: { "^x": { type: "string" } } } },
      { name: "$ref", schema: { type: "object", properties: { a: { $ref: "#/defs/a" } } } },
      { name: "oneOf", schema: { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } } },
      { name: "a non-object root", schema: { type: "array", items: { type: "string" } } },
      { name: "additionalProperties as a schema", schema: { type: "object", additionalProperties: { type: "string" } } },
    ])("output_schema with $name → 400 with a path under output_schema", async ({ schema }) => {
      const err = await expectInvalid(await postAsync({ ...VALID, output_schema: schema }), expect.anything() as never);
      for (const d of err.error.details) expect(d.path[0]).toBe("output_schema");
      expect(err.error.message).toMatch(/output_schema/);
    });

    it("output_schema details point at the offending keyword", async () => {
      const schema = { type: "object", properties: { a: { $ref: "#/defs/a" }, b: { oneOf: [] } } };
      await expectInvalid(await postAsync({ ...VALID, output_schema: schema }), ["output_schema", "properties", "a", "$ref"]);
      await expectInvalid(await postAsync({ ...VALID, output_schema: schema }), ["output_schema", "properties", "b", "oneOf"]);
      const pp = { type: "object", patternProperties: {} };
      await expectInvalid(await postAsync({ ...VALID, output_schema: pp }), ["output_schema", "patternProperties"]);
    });

    it.each([
      { name: "a backreference", pattern: "(a)\\1" },
      { name: "a lookahead", pattern: "^(?=.*\\d)" },
      { name: "a lookbehind", pattern: "(?<!x)y" },
    ])("an output_schema pattern with $name (not RE2) → 400 naming the pattern", async ({ pattern }) => {
      const schema = { type: "object", properties: { code: { type: "string", pattern } } };
      const err = await expectInvalid(await postAsync({ ...VALID, output_schema: schema }), [
        "output_schema",
        "properties",
        "code",
        "pattern",
      ]);
      expect(err.error.message).toMatch(/RE2/);
    });

    it.each([
      "https://127.0.0.1/hook",
      "https://[::1]:8443/hook",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.5/hook",
      "https://[::ffff:192.168.1.1]/hook",
      "https://localhost/hook",
      "https://hooks.localhost/hook",
      "https://metadata.google.internal/hook",
      "https://intranet/hook",
      "https://hooks.example.com:25/hook",
    ])("webhook_url %s (refused by the address policy) → 400 naming webhook_url", async (webhook_url) => {
      const err = await expectInvalid(await postAsync({ ...VALID, webhook_url }), ["webhook_url"]);
      expect(err.error.message).toMatch(/webhook_url/);
    });

    it("a batch child's private webhook_url → 400 under [runs, i, webhook_url]", async () => {
      const body = { runs: [VALID, { ...VALID, webhook_url: "https://192.168.0.10/hook" }] };
      await expectInvalid(await ctx.postJson(key, "/v1/automation/run-batch", body), ["runs", 1, "webhook_url"]);
    });

    it("OSPREY_ALLOW_PRIVATE_HOSTS exempts a webhook host (and only the port it names)", async () => {
      const own = createTestContext(database.db, {
        runs: {
          queue: createPgQueue({ db: database.db }),
          model: { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: null },
          allowPrivateHosts: [{ host: "127.0.0.1", port: 8443 }],
        },
      });
      const { key: k } = await fundedKey(own);
      const ok = await okJson(await own.postJson(k, ASYNC, { ...VALID, webhook_url: "https://127.0.0.1:8443/hook" }));
      await own.call(k, `/v1/runs/${ok.run_id}/cancel`, { method: "POST" });
      await expectInvalid(await own.postJson(k, ASYNC, { ...VALID, webhook_url: "https://127.0.0.1:8444/hook" }), [
        "webhook_url",
      ]);
    });

    it("a body that is not JSON", async () => {
      const res = await ctx.call(key, ASYNC, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"url": "https://example.com/", ',
      });
      const err = await expectError(res, 400, "INVALID_INPUT");
      expect(err.error.message).toMatch(/JSON/);
    });

    it("a wrong content type", async () => {
      const res = await ctx.call(key, ASYNC, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify(VALID),
      });
      const err = await expectError(res, 400, "INVALID_INPUT");
      expect(err.error.message).toMatch(/Content-Type/i);
    });

    it("a body over 1 MiB → 413", async () => {
      const body = JSON.stringify({ ...VALID, goal: "g".repeat(MAX_BODY_BYTES) });
      const res = await ctx.call(key, ASYNC, { method: "POST", headers: { "content-type": "application/json" }, body });
      const err = await expectError(res, 413, "INVALID_INPUT");
      expect(err.error.message).toMatch(/1 MiB/);
    });

    it("a valid body with every optional field is accepted (control)", async () => {
      const body = {
        ...VALID,
        browser_profile: "stealth",
        api_integration: "tests",
        agent_config: { mode: "standard", cursor_style: "standard", max_steps: 10, max_duration_seconds: 10 },
        capture_config: { elements: true, snapshots: true, screenshots: true, recording: true, html: true },
        webhook_url: "https://hooks.example.com/osprey",
        use_vault: false,
        use_profile: false,
        output_schema: { type: "object", properties: { price: { type: "number" } }, required: ["price"] },
      };
      const run = await okJson(await postAsync(body));
      expect(run.status).toBe("PENDING");
    });
  });

  describe("403 FORBIDDEN entitlements", () => {
    it("agent_config.max_steps on a non-beta account, accepted with beta", async () => {
      const { key: plain } = await fundedKey(ctx, { plan: "pro" });
      const err = await expectError(await postAsync({ ...VALID, agent_config: { max_steps: 10 } }, plain), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/max_steps/);
      expect(err.error.message).toMatch(/beta/);
      expect(err.error.details).toBeUndefined();
      // Requests without it are unaffected.
      expect((await okJson(await postAsync({ ...VALID, agent_config: { max_duration_seconds: 60 } }, plain))).status).toBe(
        "PENDING",
      );
      const { key: beta } = await fundedKey(ctx, { plan: "free", entitlements: ["beta"] });
      expect((await okJson(await postAsync({ ...VALID, agent_config: { max_steps: 10 } }, beta))).status).toBe("PENDING");
    });

    it('agent_config.mode "strict" without beta', async () => {
      const { key: plain } = await fundedKey(ctx, { plan: "pro" });
      const err = await expectError(await postAsync({ ...VALID, agent_config: { mode: "strict" } }, plain), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/strict/);
      expect(err.error.message).toMatch(/beta/);
      expect((await okJson(await postAsync({ ...VALID, agent_config: { mode: "strict" } }))).status).toBe("PENDING");
    });

    it.each([
      { flag: "elements", entitlement: "capture_elements" },
      { flag: "snapshots", entitlement: "capture_snapshots" },
      { flag: "recording", entitlement: "capture_recording" },
      { flag: "html", entitlement: "capture_html" },
    ])("capture_config.$flag on the free plan (lacks $entitlement); false is fine", async ({ flag, entitlement }) => {
      const { key: free } = await fundedKey(ctx, { plan: "free" });
      const err = await expectError(await postAsync({ ...VALID, capture_config: { [flag]: true } }, free), 403, "FORBIDDEN");
      expect(err.error.message).toContain(`capture_config.${flag}`);
      expect(err.error.message).toContain(entitlement);
      expect((await okJson(await postAsync({ ...VALID, capture_config: { [flag]: false } }, free))).status).toBe("PENDING");
    });

    it("capture_config.screenshots is in the free plan", async () => {
      const { key: free } = await fundedKey(ctx, { plan: "free" });
      expect((await okJson(await postAsync({ ...VALID, capture_config: { screenshots: true } }, free))).status).toBe("PENDING");
    });

    it('proxy_config.type "custom" without custom_proxy', async () => {
      const { key: starter } = await fundedKey(ctx, { plan: "starter" });
      const err = await expectError(await postAsync({ ...VALID, proxy_config: { type: "custom" } }, starter), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/custom_proxy/);
    });

    it("output_schema without the entitlement (free plan)", async () => {
      const { key: free } = await fundedKey(ctx, { plan: "free" });
      const schema = { type: "object", properties: { a: { type: "string" } } };
      const err = await expectError(await postAsync({ ...VALID, output_schema: schema }, free), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/output_schema/);
    });

    it("a plan entitlement an operator revoked is refused", async () => {
      const k = await fundedKey(ctx, { plan: "free" });
      await ctx.services.accounts.revoke(k.accountId, ["capture_screenshots"]);
      const err = await expectError(
        await postAsync({ ...VALID, capture_config: { screenshots: true } }, k.key),
        403,
        "FORBIDDEN",
      );
      expect(err.error.message).toContain("capture_screenshots");
    });

    it("zero credits → 403 naming credits", async () => {
      const { key: broke } = await fundedKey(ctx, { plan: "pro", credits: 0 });
      const err = await expectError(await postAsync(VALID, broke), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/credits/);
    });

    it("no model configured → 403 naming the OSPREY_LLM_* variables, on every automation endpoint", async () => {
      const bare = createTestContext(database.db); // default: model null
      const k = await fundedKey(bare, { plan: "pro" });
      for (const path of ["/v1/automation/run", ASYNC, "/v1/automation/run-sse"]) {
        const err = await expectError(await bare.postJson(k.key, path, VALID), 403, "FORBIDDEN");
        for (const v of ["OSPREY_LLM_PROVIDER", "OSPREY_LLM_MODEL", "OSPREY_LLM_API_KEY"]) expect(err.error.message).toContain(v);
      }
      const err = await expectError(await bare.postJson(k.key, "/v1/automation/run-batch", { runs: [VALID] }), 403, "FORBIDDEN");
      expect(err.error.message).toContain("OSPREY_LLM_PROVIDER");
    });

    it("a 400 wins over a 403", async () => {
      const { key: free } = await fundedKey(ctx, { plan: "free", credits: 0 });
      // max_steps out of range and beta missing and no credits: the schema error comes first.
      await expectInvalid(await postAsync({ ...VALID, agent_config: { max_steps: 0 } }, free), ["agent_config", "max_steps"]);
      // An unsupported output_schema keyword is a 400 even without the output_schema entitlement.
      const schema = { type: "object", oneOf: [] };
      await expectInvalid(await postAsync({ ...VALID, output_schema: schema }, free), ["output_schema", "oneOf"]);
      await expectInvalid(await postAsync({ ...VALID, url: "nope" }, free), ["url"]);
    });

    it("entitlement failures come before the credit check", async () => {
      const { key: free } = await fundedKey(ctx, { plan: "free", credits: 0 });
      const err = await expectError(await postAsync({ ...VALID, capture_config: { html: true } }, free), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/capture_html/);
    });
  });

  describe("features this server does not have yet", () => {
    it("use_vault true on a deployment without a vault → 403 (refused, never ignored)", async () => {
      const bare = createTestContext(database.db, { runs: { ...acceptingRuns(database.db), credentials: undefined } });
      const k = await fundedKey(bare);
      const err = await expectError(await bare.postJson(k.key, ASYNC, { ...VALID, use_vault: true }), 403, "FORBIDDEN");
      expect(err.error.message).toMatch(/use_vault is not available on this deployment/);
    });

    it("use_vault true with no items is accepted (the agent simply has no credentials)", async () => {
      expect((await okJson(await postAsync({ ...VALID, use_vault: true }))).status).toBe("PENDING");
    });

    it("a credential_item_ids entry that is not the account's → 400 naming it", async () => {
      const body = { ...VALID, use_vault: true, credential_item_ids: ["cred:conn_7:Personal:item_1"] };
      const err = await expectInvalid(await postAsync(body), ["credential_item_ids", 0]);
      expect(err.error.message).toContain("cred:conn_7:Personal:item_1");
    });

    it("use_profile true without profile_id → 400 with a use_profile detail", async () => {
      const err = await expectInvalid(await postAsync({ ...VALID, use_profile: true }), ["use_profile"]);
      expect(err.error.message).toMatch(/default Browser Context Profile/);
    });

    it("use_profile with profile_id → 404", async () => {
      const err = await expectError(await postAsync({ ...VALID, use_profile: true, profile_id: "prof_9" }), 404, "NOT_FOUND");
      expect(err.error.message).toContain("prof_9");
    });

    it("proxy_config managed → 403", async () => {
      const err = await expectError(
        await postAsync({ ...VALID, proxy_config: { type: "managed", country_code: "US" } }),
        403,
        "FORBIDDEN",
      );
      expect(err.error.message).toMatch(/proxy/);
    });

    it("use_vault false and use_profile false are accepted", async () => {
      expect((await okJson(await postAsync({ ...VALID, use_vault: false, use_profile: false }))).status).toBe("PENDING");
    });
  });

  describe("401 without a usable key", () => {
    const routes: [string, string, unknown?][] = [
      ["POST", "/v1/automation/run", VALID],
      ["POST", ASYNC, VALID],
      ["POST", "/v1/automation/run-sse", VALID],
      ["POST", "/v1/automation/run-batch", { runs: [VALID] }],
      ["GET", "/v1/runs"],
      ["GET", "/v1/runs/run_x"],
      ["POST", "/v1/runs/run_x/cancel"],
    ];
    it.each(routes)("%s %s", async (method, path, body) => {
      const init = {
        method,
        headers: { "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      };
      await expectError(await ctx.app.request(path, init), 401, "MISSING_API_KEY");
      await expectError(await ctx.call("osp_not_a_real_key_0000000000", path, init), 401, "INVALID_API_KEY");
    });
  });
});
