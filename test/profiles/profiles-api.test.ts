import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../functions/lib/logger.ts";
import { PROFILE_LIMITS } from "../../functions/profiles/profile.schemas.ts";
import type { ProfileWire } from "../../functions/profiles/profile.service.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { profilesOver, stateOf, testKeyring } from "./profile-fixtures.ts";

/**
 * The Browser Context Profile API over HTTP (spec 2.3, 4.4, 4.8, 5, 7.1, 8): every route's answer
 * and its bad inputs, the shared pagination, one default per account, and account scoping (another
 * account's profile is 404 on every route). States are written through the ProfileStore as a run
 * would; the API shows their counts, never a value.
 */

type Profile = ProfileWire;
interface ErrorBody {
  error: { code: string; message: string; details?: { code: string; path: (string | number)[]; message: string }[] };
  request_id: string;
}
interface ProfilePage {
  items: Profile[];
  total: number;
  limit: number;
  page: number;
  total_pages: number;
  has_more: boolean;
}

const FIELDS = [
  "created_at",
  "domain_count",
  "domains",
  "fingerprint_seed",
  "id",
  "is_default",
  "name",
  "proxy_country_code",
  "updated_at",
];

describe.each(driverCases(["pglite", "pg"]))("the profile API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let store: ProfileStore;

  beforeAll(async () => {
    db = await open();
    const keyring = testKeyring();
    ctx = createTestContext(db.db, {
      profiles: ({ clock, logger }) => {
        const built = profilesOver(db.db, keyring, logger, clock);
        store = built.store;
        return built.service;
      },
    });
  });
  afterAll(async () => {
    await db?.dispose();
  });

  const send = (key: string, method: string, path: string, body?: unknown) =>
    ctx.call(key, path, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  async function create(key: string, body: Record<string, unknown> = { name: "Shop" }): Promise<Profile> {
    const res = await ctx.postJson(key, "/v1/profiles", body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as Profile;
  }

  async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect({ status: res.status, code: body.error.code }, JSON.stringify(body)).toEqual({ status, code });
    expect(res.headers.get("x-request-id")).toBe(body.request_id);
    return body;
  }

  it("creates a profile (201) with every field of spec 2.3, a generated seed, the name trimmed, and GET answers the same", async () => {
    const { key } = await ctx.newKey();
    const made = await create(key, { name: "  Shop account  " });
    expect(Object.keys(made).sort()).toEqual(FIELDS);
    expect(made).toMatchObject({
      name: "Shop account",
      domains: [],
      domain_count: 0,
      proxy_country_code: null,
      is_default: false,
      created_at: ctx.clock.now().toISOString(),
      updated_at: ctx.clock.now().toISOString(),
    });
    expect(made.id).toMatch(/^prof_[0-9a-z]{26}$/);
    expect(made.fingerprint_seed).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const res = await ctx.call(key, `/v1/profiles/${made.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(made);

    const other = await create(key, { name: "DE", proxy_country_code: "DE", fingerprint_seed: "my_seed-1" });
    expect(other).toMatchObject({ proxy_country_code: "DE", fingerprint_seed: "my_seed-1" });
    expect(other.fingerprint_seed).not.toBe(made.fingerprint_seed);
  });

  it("shows each domain's counts, times and writer, sorted by domain, and never a value", async () => {
    const { key, accountId } = await ctx.newKey();
    const made = await create(key);
    const at = new Date("2026-11-21T11:00:00.000Z");
    await store.save(accountId, made.id, {
      writes: [
        { domain: "zeta.example", state: stateOf("zeta.example", "VALUE-CANARY", 3, 2) },
        { domain: "alpha.co.uk", state: stateOf("alpha.co.uk", "VALUE-CANARY", 1, 0) },
      ],
      accessed: ["zeta.example", "alpha.co.uk"],
      writtenBy: "run_first",
      at,
    });
    const res = await ctx.call(key, `/v1/profiles/${made.id}`);
    const text = await res.text();
    expect(text).not.toContain("VALUE-CANARY");
    const body = JSON.parse(text) as Profile;
    expect(body.domain_count).toBe(2);
    expect(body.domains).toEqual([
      {
        domain: "alpha.co.uk",
        cookie_count: 1,
        local_storage_origin_count: 0,
        last_accessed_at: at.toISOString(),
        last_written_at: at.toISOString(),
        last_written_by_run_id: "run_first",
      },
      {
        domain: "zeta.example",
        cookie_count: 3,
        local_storage_origin_count: 2,
        last_accessed_at: at.toISOString(),
        last_written_at: at.toISOString(),
        last_written_by_run_id: "run_first",
      },
    ]);
    // The save is a change of the profile.
    expect(body.updated_at).toBe(at.toISOString());
  });

  it("refuses bad bodies with 400 INVALID_INPUT naming the field, never a 500", async () => {
    const { key } = await ctx.newKey();
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: "two\nlines" }, "name"],
      [{ name: 7 }, "name"],
      [{ name: "a", proxy_country_code: "XX" }, "proxy_country_code"],
      [{ name: "a", proxy_country_code: "de" }, "proxy_country_code"],
      [{ name: "a", is_default: "yes" }, "is_default"],
      [{ name: "a", fingerprint_seed: "" }, "fingerprint_seed"],
      [{ name: "a", fingerprint_seed: "has space" }, "fingerprint_seed"],
      [{ name: "a", fingerprint_seed: "s".repeat(129) }, "fingerprint_seed"],
      [{ name: "a", colour: "blue" }, ""],
    ];
    for (const [body, field] of cases) {
      const err = await expectError(await ctx.postJson(key, "/v1/profiles", body), 400, "INVALID_INPUT");
      expect(err.error.details?.length, JSON.stringify(body)).toBeGreaterThan(0);
      if (field) expect(err.error.details?.[0]?.path, JSON.stringify(body)).toEqual([field]);
      else expect(err.error.details?.[0]?.code).toBe("unrecognized_keys");
    }
    await expectError(await ctx.postJson(key, "/v1/profiles", [1]), 400, "INVALID_INPUT");
    const raw = await ctx.call(key, "/v1/profiles", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    await expectError(raw, 400, "INVALID_INPUT");
    // A 128-character seed is fine.
    await create(key, { name: "a", fingerprint_seed: "s".repeat(128) });
  });

  it("refuses bad ids with 400 and unknown ones with 404 on every route", async () => {
    const { key } = await ctx.newKey();
    for (const bad of ["x".repeat(101), "prof_%21bad", "a.b"]) {
      await expectError(await ctx.call(key, `/v1/profiles/${bad}`), 400, "INVALID_INPUT");
      await expectError(await send(key, "PATCH", `/v1/profiles/${bad}`, { name: "n" }), 400, "INVALID_INPUT");
      await expectError(await send(key, "DELETE", `/v1/profiles/${bad}`), 400, "INVALID_INPUT");
    }
    const unknown = "prof_01jd8q3x6f0000000000000000";
    await expectError(await ctx.call(key, `/v1/profiles/${unknown}`), 404, "NOT_FOUND");
    await expectError(await send(key, "PATCH", `/v1/profiles/${unknown}`, { name: "n" }), 404, "NOT_FOUND");
    await expectError(await send(key, "DELETE", `/v1/profiles/${unknown}`), 404, "NOT_FOUND");
    await expectError(await send(key, "DELETE", `/v1/profiles/${unknown}/domains/example.com`), 404, "NOT_FOUND");
    const res = await ctx.call("", "/v1/profiles");
    await expectError(res, 401, "MISSING_API_KEY");
  });

  it("lists with the shared pagination, newest first", async () => {
    const { key } = await ctx.newKey();
    const made: Profile[] = [];
    for (const name of ["one", "two", "three"]) {
      ctx.clock.advance(1000);
      made.push(await create(key, { name }));
    }
    const page = async (q: string) => {
      const res = await ctx.call(key, `/v1/profiles${q}`);
      expect(res.status).toBe(200);
      return (await res.json()) as ProfilePage;
    };
    const first = await page("?limit=2");
    expect(first).toMatchObject({ total: 3, limit: 2, page: 1, total_pages: 2, has_more: true });
    expect(first.items.map((p) => p.name)).toEqual(["three", "two"]);
    expect(first.items[0]).toEqual(made[2]);
    const second = await page("?limit=2&page=2");
    expect(second).toMatchObject({ total: 3, page: 2, has_more: false });
    expect(second.items.map((p) => p.name)).toEqual(["one"]);
    expect(await page("")).toMatchObject({ total: 3, limit: 100, page: 1, total_pages: 1, has_more: false });
    expect((await page("?page=9")).items).toEqual([]);
    for (const q of ["?limit=0", "?limit=1001", "?page=0", "?limit=x"]) {
      await expectError(await ctx.call(key, `/v1/profiles${q}`), 400, "INVALID_INPUT");
    }
  });

  it("updates name and country (null clears), keeps the seed immutable, and refuses unknown fields", async () => {
    const { key } = await ctx.newKey();
    const made = await create(key, { name: "old", proxy_country_code: "FR" });
    ctx.clock.advance(5000);
    const res = await send(key, "PATCH", `/v1/profiles/${made.id}`, { name: " new " });
    expect(res.status).toBe(200);
    const renamed = (await res.json()) as Profile;
    expect(renamed).toMatchObject({ name: "new", proxy_country_code: "FR", fingerprint_seed: made.fingerprint_seed });
    expect(renamed.updated_at).toBe(ctx.clock.now().toISOString());
    expect(renamed.created_at).toBe(made.created_at);
    const cleared = (await (await send(key, "PATCH", `/v1/profiles/${made.id}`, { proxy_country_code: null })).json()) as Profile;
    expect(cleared.proxy_country_code).toBeNull();
    const same = await send(key, "PATCH", `/v1/profiles/${made.id}`, {});
    expect(await same.json()).toEqual(cleared);

    const seed = await expectError(
      await send(key, "PATCH", `/v1/profiles/${made.id}`, { fingerprint_seed: "x" }),
      400,
      "INVALID_INPUT",
    );
    expect(seed.error.message).toContain("fingerprint_seed cannot be changed");
    expect(seed.error.details?.[0]?.path).toEqual(["fingerprint_seed"]);
    await expectError(await send(key, "PATCH", `/v1/profiles/${made.id}`, { nick: "x" }), 400, "INVALID_INPUT");
    await expectError(await send(key, "PATCH", `/v1/profiles/${made.id}`, { name: "" }), 400, "INVALID_INPUT");
    await expectError(await send(key, "PATCH", `/v1/profiles/${made.id}`, { proxy_country_code: "ZZ" }), 400, "INVALID_INPUT");
    const after = (await (await ctx.call(key, `/v1/profiles/${made.id}`)).json()) as Profile;
    expect(after).toEqual(cleared);
  });

  it("keeps one default per account: create and PATCH move it, false leaves none", async () => {
    const { key, accountId } = await ctx.newKey();
    const get = async (id: string) => (await (await ctx.call(key, `/v1/profiles/${id}`)).json()) as Profile;
    const a = await create(key, { name: "a", is_default: true });
    expect(a.is_default).toBe(true);
    expect((await store.resolve(accountId, undefined))?.id).toBe(a.id);
    const b = await create(key, { name: "b", is_default: true });
    expect((await get(a.id)).is_default).toBe(false);
    expect((await get(b.id)).is_default).toBe(true);
    const c = await create(key, { name: "c" });
    expect((await get(b.id)).is_default).toBe(true);
    const moved = (await (await send(key, "PATCH", `/v1/profiles/${c.id}`, { is_default: true })).json()) as Profile;
    expect(moved.is_default).toBe(true);
    expect((await get(b.id)).is_default).toBe(false);
    expect((await store.resolve(accountId, undefined))?.id).toBe(c.id);
    // true on the default already: it stays.
    expect(((await (await send(key, "PATCH", `/v1/profiles/${c.id}`, { is_default: true })).json()) as Profile).is_default).toBe(
      true,
    );
    await send(key, "PATCH", `/v1/profiles/${c.id}`, { is_default: false });
    expect(await store.resolve(accountId, undefined)).toBeNull();
    for (const p of [a, b, c]) expect((await get(p.id)).is_default).toBe(false);
    // Deleting the default leaves the account with none.
    await send(key, "PATCH", `/v1/profiles/${a.id}`, { is_default: true });
    expect((await send(key, "DELETE", `/v1/profiles/${a.id}`)).status).toBe(204);
    expect(await store.resolve(accountId, undefined)).toBeNull();
  });

  it("leaves exactly one default when many default creates and PATCHes race", async () => {
    const { key } = await ctx.newKey();
    const existing = await create(key, { name: "first" });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => ctx.postJson(key, "/v1/profiles", { name: `d${i}`, is_default: true })),
      send(key, "PATCH", `/v1/profiles/${existing.id}`, { is_default: true }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 201, 201, 201, 201, 201, 201, 201, 201]);
    const list = (await (await ctx.call(key, "/v1/profiles")).json()) as ProfilePage;
    expect(list.total).toBe(9);
    expect(list.items.filter((p) => p.is_default)).toHaveLength(1);
  });

  it("deletes a profile and its domains (204), then 404", async () => {
    const { key, accountId } = await ctx.newKey();
    const made = await create(key);
    await store.save(accountId, made.id, {
      writes: [{ domain: "example.com", state: stateOf("example.com", "t") }],
      accessed: [],
      writtenBy: "run_x",
      at: ctx.clock.now(),
    });
    expect((await send(key, "DELETE", `/v1/profiles/${made.id}`)).status).toBe(204);
    await expectError(await send(key, "DELETE", `/v1/profiles/${made.id}`), 404, "NOT_FOUND");
    await expectError(await ctx.call(key, `/v1/profiles/${made.id}`), 404, "NOT_FOUND");
    expect(await store.load(accountId, made.id)).toBeNull();
    // A run still on it saves nothing.
    const late = {
      writes: [{ domain: "example.com", state: stateOf("example.com", "late") }],
      accessed: [],
      writtenBy: "run_y",
      at: ctx.clock.now(),
    };
    expect(await store.save(accountId, made.id, late)).toBe(false);
  });

  it("forgets one site by any host of it (204), then 404; the others stay", async () => {
    const { key, accountId } = await ctx.newKey();
    const made = await create(key);
    await store.save(accountId, made.id, {
      writes: [
        { domain: "example.co.uk", state: stateOf("example.co.uk", "t") },
        { domain: "other.com", state: stateOf("other.com", "t") },
      ],
      accessed: [],
      writtenBy: "run_x",
      at: ctx.clock.now(),
    });
    const path = `/v1/profiles/${made.id}/domains`;
    expect((await send(key, "DELETE", `${path}/Login.Example.co.uk`)).status).toBe(204);
    const after = (await (await ctx.call(key, `/v1/profiles/${made.id}`)).json()) as Profile;
    expect(after.domains.map((d) => d.domain)).toEqual(["other.com"]);
    expect(after.domain_count).toBe(1);
    const again = await expectError(await send(key, "DELETE", `${path}/example.co.uk`), 404, "NOT_FOUND");
    expect(again.error.message).toContain("example.co.uk");
    await expectError(await send(key, "DELETE", `${path}/never.example`), 404, "NOT_FOUND");
    await expectError(await send(key, "DELETE", `${path}/a%20b`), 400, "INVALID_INPUT");
    await expectError(await send(key, "DELETE", `${path}/${"a".repeat(254)}`), 400, "INVALID_INPUT");
    expect((await store.load(accountId, made.id))?.domains.map((d) => d.domain)).toEqual(["other.com"]);
  });

  it("scopes every route to the caller's account: another account's profile is 404 and never listed", async () => {
    const a = await ctx.newKey();
    const b = await ctx.newKey();
    const mine = await create(a.key, { name: "A's", is_default: true });
    await store.save(a.accountId, mine.id, {
      writes: [{ domain: "bank.example", state: stateOf("bank.example", "a") }],
      accessed: [],
      writtenBy: "run_a",
      at: ctx.clock.now(),
    });
    const before = await (await ctx.call(a.key, `/v1/profiles/${mine.id}`)).json();
    await expectError(await ctx.call(b.key, `/v1/profiles/${mine.id}`), 404, "NOT_FOUND");
    await expectError(await send(b.key, "PATCH", `/v1/profiles/${mine.id}`, { name: "stolen" }), 404, "NOT_FOUND");
    await expectError(await send(b.key, "PATCH", `/v1/profiles/${mine.id}`, { is_default: true }), 404, "NOT_FOUND");
    await expectError(await send(b.key, "DELETE", `/v1/profiles/${mine.id}/domains/bank.example`), 404, "NOT_FOUND");
    await expectError(await send(b.key, "DELETE", `/v1/profiles/${mine.id}`), 404, "NOT_FOUND");
    await create(b.key, { name: "B's", is_default: true });
    const listed = (await (await ctx.call(b.key, "/v1/profiles")).json()) as ProfilePage;
    expect(listed.items.map((p) => p.name)).toEqual(["B's"]);
    expect(await (await ctx.call(a.key, `/v1/profiles/${mine.id}`)).json()).toEqual(before);
    // B's default did not take A's away.
    expect((await store.resolve(a.accountId, undefined))?.id).toBe(mine.id);
    expect(await store.resolve(b.accountId, mine.id)).toBeNull();
    expect(await store.load(b.accountId, mine.id)).toBeNull();
  });

  it(`refuses a profile beyond ${PROFILE_LIMITS.maxPerAccount} per account with 403 FORBIDDEN`, async () => {
    const { key } = await ctx.newKey();
    for (let i = 0; i < PROFILE_LIMITS.maxPerAccount; i++) await create(key, { name: `p${i}` });
    const err = await expectError(await ctx.postJson(key, "/v1/profiles", { name: "one more" }), 403, "FORBIDDEN");
    expect(err.error.message).toContain(String(PROFILE_LIMITS.maxPerAccount));
    const other = await ctx.newKey();
    await create(other.key);
  });

  it("has no profile paths where no profile service is wired (no vault key)", async () => {
    const bare = createTestContext(db.db, { logger: silentLogger });
    const { key } = await bare.newKey();
    expect((await bare.call(key, "/v1/profiles")).status).toBe(404);
  });
});
