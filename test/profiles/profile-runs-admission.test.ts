import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../functions/lib/logger.ts";
import { createTestContext, TestClock, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { acceptingRuns, expectError, expectInvalid, fundedKey, type Json, okJson, VALID } from "../runs/run-admission-helpers.ts";
import { profilesOver, testKeyring } from "./profile-fixtures.ts";

/**
 * use_profile / profile_id at run admission (spec 4.1, issue [4 of 6]): the profile is resolved
 * before the run exists, as the caller's own or the account's default; every refusal leaves no run.
 */

describe.each(driverCases(["pglite", "pg"]))("use_profile admission on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;

  beforeAll(async () => {
    db = await open();
    const clock = new TestClock();
    const profiles = profilesOver(db.db, testKeyring(), silentLogger, clock);
    ctx = createTestContext(db.db, {
      clock,
      runs: { ...acceptingRuns(db.db), profiles: profiles.store },
      profiles: () => profiles.service,
    });
  });
  afterAll(() => db?.dispose());

  const post = (key: string, body: Json) => ctx.postJson(key, "/v1/automation/run-async", body);
  const runsOf = async (key: string) => (await okJson(await ctx.call(key, "/v1/runs"))).total as number;
  const newProfile = async (key: string, body: Json): Promise<Json> => {
    const res = await ctx.postJson(key, "/v1/profiles", body);
    expect(res.status).toBe(201);
    return (await res.json()) as Json;
  };

  it("the caller's profile_id, and the default profile without one, are accepted", async () => {
    const { key } = await fundedKey(ctx);
    const p = await newProfile(key, { name: "Shop" });
    expect((await okJson(await post(key, { ...VALID, use_profile: true, profile_id: p.id }))).status).toBe("PENDING");
    await newProfile(key, { name: "Default", is_default: true });
    expect((await okJson(await post(key, { ...VALID, use_profile: true }))).status).toBe("PENDING");
  });

  it("no default profile → 400 at use_profile, no run", async () => {
    const { key } = await fundedKey(ctx);
    await newProfile(key, { name: "Not default" });
    const err = await expectInvalid(await post(key, { ...VALID, use_profile: true }), ["use_profile"]);
    expect(err.error.message).toMatch(/no default Browser Context Profile/);
    expect(await runsOf(key)).toBe(0);
  });

  it("another account's profile, or an unknown one → 404 naming it, no run", async () => {
    const a = await fundedKey(ctx);
    const b = await fundedKey(ctx);
    const theirs = await newProfile(a.key, { name: "A's", is_default: true });
    for (const id of [theirs.id, "prof_unknown"]) {
      const err = await expectError(await post(b.key, { ...VALID, use_profile: true, profile_id: id }), 404, "NOT_FOUND");
      expect(err.error.message).toContain(id);
    }
    // A's default is not B's default.
    await expectInvalid(await post(b.key, { ...VALID, use_profile: true }), ["use_profile"]);
    expect(await runsOf(b.key)).toBe(0);
  });

  it("a profile with an exit country runs cannot honour → 403 naming it", async () => {
    const { key } = await fundedKey(ctx);
    const p = await newProfile(key, { name: "German", proxy_country_code: "DE" });
    const err = await expectError(await post(key, { ...VALID, use_profile: true, profile_id: p.id }), 403, "FORBIDDEN");
    expect(err.error.message).toContain(p.id);
    expect(err.error.message).toContain("DE");
  });

  it("profile_id without use_profile → 400; in a batch the child is named", async () => {
    const { key } = await fundedKey(ctx);
    await expectInvalid(await post(key, { ...VALID, profile_id: "prof_x" }), ["profile_id"]);
    const batch = { runs: [VALID, { ...VALID, use_profile: true, profile_id: "prof_nope" }] };
    const err = await expectError(await ctx.postJson(key, "/v1/automation/run-batch", batch), 404, "NOT_FOUND");
    expect(err.error.message).toContain("runs.1");
    expect(await runsOf(key)).toBe(0);
  });
});
