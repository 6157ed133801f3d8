import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../functions/lib/logger.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import type { SessionWire } from "../../functions/sessions/session.wire.ts";
import { createTestContext, TestClock, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { SessionHostDouble, sessionsOver } from "../helpers/session-host-double.ts";
import { profilesOver, testKeyring } from "./profile-fixtures.ts";

/**
 * Browser sessions on Browser Context Profiles over HTTP (issue [4 of 6]): POST {browser_url} with
 * profile_id and persist, and a profile's setup session (start, save, cancel). The session host is
 * the double of its port (no browser): what it is asked to start and save is exact. Loading and
 * saving a profile in a real browser is covered in profile-browser-*.test.ts.
 */

const DE_PROXY = "http://proxy-de.internal:3128";
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in these tests
type Json = Record<string, any>;

describe.each(driverCases(["pglite", "pg"]))("sessions on profiles on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let bare: TestContext;
  let host: SessionHostDouble;
  let store: ProfileStore;
  const a = { key: "", accountId: "" };
  const b = { key: "", accountId: "" };

  beforeAll(async () => {
    db = await open();
    const clock = new TestClock();
    host = new SessionHostDouble(db.db, clock);
    const keyring = testKeyring();
    const profiles = profilesOver(db.db, keyring, silentLogger, clock);
    store = profiles.store;
    ctx = createTestContext(db.db, {
      clock,
      profiles: () => profiles.service,
      sessions: sessionsOver(host, { profiles: store, countryProxies: { DE: DE_PROXY } }),
    });
    // The cloud's {agent_url}: profiles, no sessions beside them.
    bare = createTestContext(db.db, { clock, profiles: () => profiles.service });
    Object.assign(a, await ctx.newKey({ plan: "pro" }));
    Object.assign(b, await ctx.newKey({ plan: "pro" }));
  });
  afterAll(() => db?.dispose());

  const post = (key: string, path: string, body?: unknown) =>
    body === undefined ? ctx.call(key, path, { method: "POST" }) : ctx.postJson(key, path, body);
  const json = async (res: Response, status: number): Promise<Json> => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return JSON.parse(text) as Json;
  };
  const newProfile = async (key: string, extra: Json = {}) =>
    (await json(await post(key, "/v1/profiles", { name: "Shop", ...extra }), 201)) as Json;
  const launchOf = (id: string) => host.starts.find((s) => s.id === id);

  describe("POST {browser_url} with profile_id", () => {
    it("starts from the caller's profile: its seed, persist true by default", async () => {
      const p = await newProfile(a.key);
      const s = (await json(await post(a.key, "/browser", { profile_id: p.id }), 201)) as SessionWire;
      expect(s.profile_id).toBe(p.id);
      expect(s.fingerprint_seed).toBe(p.fingerprint_seed);
      expect(launchOf(s.session_id)?.profile).toEqual({ id: p.id, persist: true });
      expect(launchOf(s.session_id)?.fingerprintSeed).toBe(p.fingerprint_seed);
    });

    it("persist false: the profile is only read", async () => {
      const p = await newProfile(a.key);
      const s = (await json(await post(a.key, "/browser", { profile_id: p.id, persist: false }), 201)) as SessionWire;
      expect(launchOf(s.session_id)?.profile).toEqual({ id: p.id, persist: false });
    });

    it("the profile's exit country is the session's managed proxy", async () => {
      const p = await newProfile(a.key, { proxy_country_code: "DE" });
      const s = (await json(await post(a.key, "/browser", { profile_id: p.id, mode: "stealth" }), 201)) as SessionWire;
      expect(s.proxy).toEqual({ type: "managed", country_code: "DE" });
      expect(launchOf(s.session_id)).toMatchObject({ countryCode: "DE", upstream: { url: DE_PROXY, trusted: true } });
    });

    it("another account's profile, or an unknown one → 404, nothing started", async () => {
      const p = await newProfile(a.key);
      const before = host.starts.length;
      for (const id of [p.id, "prof_unknown"]) {
        const err = await json(await post(b.key, "/browser", { profile_id: id }), 404);
        expect(err.error.code).toBe("NOT_FOUND");
        expect(err.error.message).toContain(id);
      }
      expect(host.starts.length).toBe(before);
    });

    it.each([
      ["persist without profile_id", () => ({ persist: true }), ["persist"]],
      [
        "a fingerprint_seed other than the profile's",
        (id: string) => ({ profile_id: id, fingerprint_seed: "mine" }),
        ["fingerprint_seed"],
      ],
      ["persist not a boolean", (id: string) => ({ profile_id: id, persist: "yes" }), ["persist"]],
    ])("%s → 400 naming the field", async (_name, body, path) => {
      const p = await newProfile(a.key);
      const err = await json(await post(a.key, "/browser", body(p.id)), 400);
      expect(err.error.details.map((d: Json) => d.path)).toContainEqual(path);
    });

    it("the profile's own fingerprint_seed, given again, is accepted", async () => {
      const p = await newProfile(a.key);
      await json(await post(a.key, "/browser", { profile_id: p.id, fingerprint_seed: p.fingerprint_seed }), 201);
    });
  });

  describe("a profile's setup session", () => {
    it("start → 201 with a live view, not persisting; again → 200 the same session", async () => {
      const p = await newProfile(a.key);
      const s = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`), 201);
      expect(s.live_view_url).toMatch(/\/live\/[A-Za-z0-9]{32}$/);
      expect(s.cdp_url).toMatch(/^ws:/);
      expect(s.profile_id).toBe(p.id);
      expect(launchOf(s.session_id)?.profile).toEqual({ id: p.id, persist: false });
      const again = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`, { timeout_seconds: 600 }), 200);
      expect(again.session_id).toBe(s.session_id);
    });

    it("save writes the profile through the host, then ends the session (profile_saved)", async () => {
      const p = await newProfile(a.key);
      const s = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`, { timeout_seconds: 1200 }), 201);
      expect(s.timeout_seconds).toBe(1200);
      const ended = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session/save`), 200);
      expect(ended).toMatchObject({ session_id: s.session_id, status: "ended", end_reason: "profile_saved", cdp_url: null });
      expect(host.saves).toContain(s.session_id);
      // Nothing is open any more: save and cancel are 404; a new start is a new session.
      await json(await post(a.key, `/v1/profiles/${p.id}/setup-session/save`), 404);
      await json(await post(a.key, `/v1/profiles/${p.id}/setup-session/cancel`), 404);
      const next = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`), 201);
      expect(next.session_id).not.toBe(s.session_id);
    });

    it("cancel ends it without saving (setup_cancelled)", async () => {
      const p = await newProfile(a.key);
      const s = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`), 201);
      const ended = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session/cancel`), 200);
      expect(ended).toMatchObject({ status: "ended", end_reason: "setup_cancelled" });
      expect(host.saves).not.toContain(s.session_id);
    });

    it("a browser that cannot be reached to save → 503, the session stays open", async () => {
      const p = await newProfile(a.key);
      const s = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`), 201);
      host.forget(s.session_id);
      const err = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session/save`), 503);
      expect(err.error.code).toBe("SERVICE_BUSY");
      const still = await json(await ctx.call(a.key, `/browser/${s.session_id}`), 200);
      expect(still.status).not.toBe("ended");
    });

    it("another account's profile → 404 on start, save and cancel; its session is untouched", async () => {
      const p = await newProfile(a.key);
      const s = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`), 201);
      for (const path of ["setup-session", "setup-session/save", "setup-session/cancel"]) {
        const err = await json(await post(b.key, `/v1/profiles/${p.id}/${path}`), 404);
        expect(err.error.code).toBe("NOT_FOUND");
      }
      expect((await json(await ctx.call(a.key, `/browser/${s.session_id}`), 200)).status).not.toBe("ended");
    });

    it.each([
      ["an unknown field", { colour: "red" }],
      ["timeout_seconds out of range", { timeout_seconds: 5 }],
      ["profile_id in the body (the path names it)", { profile_id: "prof_x" }],
    ])("a body with %s → 400", async (_name, body) => {
      const p = await newProfile(a.key);
      const err = await json(await post(a.key, `/v1/profiles/${p.id}/setup-session`, body), 400);
      expect(err.error.code).toBe("INVALID_INPUT");
    });

    it("a malformed profile id → 400; without a key → 401", async () => {
      await json(await post(a.key, "/v1/profiles/bad%20id!/setup-session"), 400);
      const res = await ctx.app.request("/v1/profiles/prof_x/setup-session", { method: "POST" });
      expect(res.status).toBe(401);
    });

    it("a deployment with profiles but no sessions here → 403 naming {browser_url}", async () => {
      const k = await bare.newKey();
      const p = (await json(await bare.postJson(k.key, "/v1/profiles", { name: "x" }), 201)) as Json;
      const err = await json(await bare.call(k.key, `/v1/profiles/${p.id}/setup-session`, { method: "POST" }), 403);
      expect(err.error.message).toContain("{browser_url}");
    });
  });
});
