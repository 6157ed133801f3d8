import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { fingerprintFor } from "../../containers/browser/fingerprint.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { call, idx, type ScriptStep, sequence, stateText } from "../agent/loop/harness.ts";
import { TestClock } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type Json, type RunHarness, startRunHarness } from "../helpers/run-harness.ts";
import { type SessionServer, startSessionServer } from "../helpers/session-server.ts";
import { CHROME } from "../helpers/test-session.ts";
import { profilesOver, testKeyring } from "./profile-fixtures.ts";

/**
 * Issue [4 of 6] end to end with real parts: a site that sets an HttpOnly session cookie and a
 * localStorage item at login and greets a returning visitor. A first run on a profile logs in; a
 * second run on it is greeted without logging in, a run without it is not; GET /v1/profiles/{id}
 * shows the domain with its counts and the first run's id. Then a person's login through a setup
 * session (puppeteer over its cdp_url, as the live view's user would) is saved and used by a run.
 */

const drivers = driverCases(["pg"]).length > 0 ? driverCases(["pg"]) : driverCases(["pglite"]);

interface Site {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The returning-visitor site: /login (name, POST) → sid cookie + localStorage theme; /home greets a known sid. */
async function startSite(): Promise<Site> {
  const sids = new Map<string, string>();
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  const theme = `<p id="theme"></p><script>document.getElementById("theme").textContent = "Theme: " + (localStorage.getItem("theme") ?? "none");</script>`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (html: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers });
      res.end(html);
    };
    if (url.pathname === "/login" && req.method === "POST") {
      let body = "";
      for await (const c of req) body += c;
      const name = new URLSearchParams(body).get("name") || "stranger";
      const sid = randomBytes(8).toString("hex");
      sids.set(sid, name);
      return send(
        page(
          "Signed in",
          `<h1>Signed in as ${name}</h1><script>localStorage.setItem("theme", "ocean")</script><a href="/home">Home</a>`,
        ),
        { "set-cookie": `sid=${sid}; Path=/; HttpOnly; Max-Age=86400; SameSite=Lax` },
      );
    }
    if (url.pathname === "/whoami") {
      // What a site can tell of the device: the client hints' full version (its patch comes from the
      // fingerprint seed) and the screen.
      return send(
        page(
          "Who am I",
          `<p id="fp"></p><script>navigator.userAgentData.getHighEntropyValues(["uaFullVersion"]).then((v) => { document.getElementById("fp").textContent = "FP: " + v.uaFullVersion + " " + screen.width + "x" + screen.height; });</script>`,
        ),
      );
    }
    if (url.pathname === "/login") {
      return send(
        page(
          "Sign in",
          `<form method="post" action="/login"><label>Name <input name="name"></label><button>Sign in</button></form>`,
        ),
      );
    }
    const sid = /(?:^|;\s*)sid=([0-9a-f]+)/.exec(req.headers.cookie ?? "")?.[1];
    const who = sid ? sids.get(sid) : undefined;
    return send(page("Home", `${who ? `<h1>Welcome back, ${who}</h1>` : "<h1>Please sign in</h1>"}${theme}`));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(!isExecutable(CHROME)).each(drivers)("Browser Context Profiles end to end on $driver", ({ open }) => {
  let database: TestDatabase;
  let h: RunHarness;
  let sessions: SessionServer;
  let site: Site;
  let key = "";
  const errors: string[] = [];

  beforeAll(async () => {
    database = await open();
    site = await startSite();
    const profiles = profilesOver(database.db, testKeyring(), silentLogger, new TestClock());
    const hosts = [{ host: "127.0.0.1", port: site.port }];
    h = await startRunHarness(database.db, { heartbeatMs: 300, browserHosts: hosts, profiles });
    h.startWorker();
    sessions = await startSessionServer(database.db, { allowPrivateHosts: hosts, profiles });
    ({ key } = await h.newKey({ plan: "pro" }));
  }, 120_000);

  afterAll(async () => {
    await sessions?.close();
    await h?.close();
    await site?.close();
    await database?.dispose();
  });

  /** A blocking run of `steps` from `path`; the finished run. */
  async function run(path: string, steps: ScriptStep[], extra: Json = {}): Promise<Json> {
    h.model.setScript(sequence(steps, errors));
    const res = await h.ctx.postJson(key, "/v1/automation/run", {
      url: `${site.url}${path}`,
      goal: "Check the greeting",
      ...extra,
    });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }

  const greeting = (t: Parameters<ScriptStep>[0]) => {
    const text = stateText(t);
    return call("done", {
      success: true,
      result: {
        greeting: /Welcome back, \w+|Please sign in/.exec(text)?.[0] ?? "?",
        theme: /Theme: (\w+)/.exec(text)?.[1] ?? "?",
      },
    });
  };
  const newProfile = async (name: string, isDefault = false, seed?: string) => {
    const res = await h.ctx.postJson(key, "/v1/profiles", {
      name,
      is_default: isDefault,
      ...(seed ? { fingerprint_seed: seed } : {}),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Json;
  };
  const getProfile = async (id: string) => (await (await h.ctx.call(key, `/v1/profiles/${id}`)).json()) as Json;

  it("a run logs in on a profile; the next run on it is greeted, a run without it is not", async () => {
    const profile = await newProfile("Shop", true);
    const first = await run(
      "/login",
      [
        (t) => call("type", { index: idx(t, /Name \[(\d+) textbox/), text: "Ada" }),
        (t) => call("click", { index: idx(t, /\[(\d+) button\]Sign in/) }),
        (t) => call("click", { index: idx(t, /\[(\d+) link\]Home/) }),
        greeting,
      ],
      { use_profile: true, profile_id: profile.id },
    );
    expect(errors).toEqual([]);
    expect(first.status).toBe("COMPLETED");
    expect(first.result).toEqual({ greeting: "Welcome back, Ada", theme: "ocean" });

    const stored = await getProfile(profile.id);
    expect(stored.domain_count).toBe(1);
    expect(stored.domains[0]).toMatchObject({
      domain: "127.0.0.1",
      cookie_count: 1,
      local_storage_origin_count: 1,
      last_written_by_run_id: first.run_id,
    });
    expect(JSON.stringify(stored)).not.toContain("ocean");

    // The default profile (use_profile without profile_id): greeted at once, no login.
    const second = await run("/home", [greeting], { use_profile: true });
    expect(second.result).toEqual({ greeting: "Welcome back, Ada", theme: "ocean" });
    // Nothing changed, so nothing was written: still the first run's state.
    expect((await getProfile(profile.id)).domains[0].last_written_by_run_id).toBe(first.run_id);

    const stranger = await run("/home", [greeting]);
    expect(stranger.result).toEqual({ greeting: "Please sign in", theme: "none" });
    expect(errors).toEqual([]);
  });

  it("the profile's fingerprint_seed is the stealth run's device, the same every run", async () => {
    const seeds = ["device-seed-a", "device-seed-b", "device-seed-c", "device-seed-d"];
    const patch = (seed: string) =>
      fingerprintFor({ seed, browserVersion: "HeadlessChrome/131.0.6778.85", countryCode: null }).fullVersion.split(".")[3];
    const a = seeds[0] as string;
    const b = seeds.find((x) => patch(x) !== patch(a)) as string;
    const device = async (profileId: string) => {
      const r = await run(
        "/whoami",
        [
          () => call("wait_for", { text: "FP:" }),
          (t) => call("done", { success: true, result: { fp: /FP: ([\d.]+ \d+x\d+)/.exec(stateText(t))?.[1] ?? "?" } }),
        ],
        { use_profile: true, profile_id: profileId, browser_profile: "stealth" },
      );
      expect(r.status, JSON.stringify(r)).toBe("COMPLETED");
      return String(r.result.fp);
    };
    const pa = await newProfile("Device A", false, a);
    const pb = await newProfile("Device B", false, b);
    const first = await device(pa.id);
    expect(first.split(" ")[0]?.split(".")[3]).toBe(patch(a));
    expect(await device(pa.id)).toBe(first);
    const other = await device(pb.id);
    expect(other.split(" ")[0]?.split(".")[3]).toBe(patch(b));
    expect(other).not.toBe(first);
    expect(errors).toEqual([]);
  });

  it("a person logs in through a setup session; after save a run starts logged in", async () => {
    const profile = await newProfile("Setup");
    const res = await sessions.ctx.call(key, `/v1/profiles/${profile.id}/setup-session`, { method: "POST" });
    const setup = (await res.json()) as Json;
    expect(res.status, JSON.stringify(setup)).toBe(201);
    expect(setup.live_view_url).toMatch(/\/live\//);

    const browser = await puppeteer.connect({ browserWSEndpoint: setup.cdp_url });
    try {
      const page = (await browser.pages())[0] ?? (await browser.newPage());
      await page.goto(`${site.url}/login`);
      await page.type("input[name=name]", "Grace");
      await Promise.all([page.waitForNavigation(), page.click("button")]);
      expect(await page.$eval("h1", (e) => e.textContent)).toBe("Signed in as Grace");
    } finally {
      await browser.disconnect();
    }
    // Nothing is written before save.
    expect((await getProfile(profile.id)).domain_count).toBe(0);
    const saved = await sessions.ctx.call(key, `/v1/profiles/${profile.id}/setup-session/save`, { method: "POST" });
    const ended = (await saved.json()) as Json;
    expect(saved.status, JSON.stringify(ended)).toBe(200);
    expect(ended).toMatchObject({ status: "ended", end_reason: "profile_saved" });
    const stored = await getProfile(profile.id);
    expect(stored.domains[0]).toMatchObject({ domain: "127.0.0.1", cookie_count: 1, last_written_by_run_id: setup.session_id });

    const greeted = await run("/home", [greeting], { use_profile: true, profile_id: profile.id });
    expect(greeted.result).toEqual({ greeting: "Welcome back, Grace", theme: "ocean" });
    expect(errors).toEqual([]);
  });

  it("a cancelled setup session writes nothing", async () => {
    const profile = await newProfile("Cancelled");
    const res = await sessions.ctx.call(key, `/v1/profiles/${profile.id}/setup-session`, { method: "POST" });
    const setup = (await res.json()) as Json;
    const browser = await puppeteer.connect({ browserWSEndpoint: setup.cdp_url });
    try {
      const page = (await browser.pages())[0] ?? (await browser.newPage());
      await page.goto(`${site.url}/login`);
      await page.type("input[name=name]", "Eve");
      await Promise.all([page.waitForNavigation(), page.click("button")]);
    } finally {
      await browser.disconnect();
    }
    const cancelled = await sessions.ctx.call(key, `/v1/profiles/${profile.id}/setup-session/cancel`, { method: "POST" });
    expect(((await cancelled.json()) as Json).end_reason).toBe("setup_cancelled");
    expect((await getProfile(profile.id)).domain_count).toBe(0);
  });

  it("a browser session on a profile saves when it is deleted, unless persist is false", async () => {
    const profile = await newProfile("Session");
    const login = async (persist: boolean | undefined, name: string) => {
      const res = await sessions.ctx.postJson(key, "/browser", {
        profile_id: profile.id,
        ...(persist === undefined ? {} : { persist }),
      });
      const s = (await res.json()) as Json;
      expect(res.status, JSON.stringify(s)).toBe(201);
      const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url });
      try {
        const page = (await browser.pages())[0] ?? (await browser.newPage());
        await page.goto(`${site.url}/login`);
        await page.type("input[name=name]", name);
        await Promise.all([page.waitForNavigation(), page.click("button")]);
      } finally {
        await browser.disconnect();
      }
      const del = await sessions.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
      expect(del.status).toBe(204);
      return s.session_id as string;
    };
    await login(false, "Nobody");
    expect((await getProfile(profile.id)).domain_count).toBe(0);
    const id = await login(undefined, "Linus");
    expect((await getProfile(profile.id)).domains[0]).toMatchObject({ last_written_by_run_id: id, cookie_count: 1 });
    const greeted = await run("/home", [greeting], { use_profile: true, profile_id: profile.id });
    expect(greeted.result).toEqual({ greeting: "Welcome back, Linus", theme: "ocean" });
  });
});
