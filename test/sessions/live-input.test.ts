import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS } from "../../containers/browser/chromium-process.ts";
import { newId, randomBase62 } from "../../functions/lib/ids.ts";
import { sessionRepo } from "../../functions/sessions/session.repo.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";
import { insertSessionRow } from "../helpers/session-rows.ts";
import { type SessionServer, startSessionServer } from "../helpers/session-server.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";
import { waitFor } from "../helpers/wait.ts";

/**
 * A session's live view as a person uses it to log in (issue 13's setup session): the real server,
 * the real session host and egress proxy, real Chromium, and a login site on 127.0.0.1 (allowed by
 * host:port, as OSPREY_ALLOW_PRIVATE_HOSTS does). No CDP client drives the session: everything it
 * does comes through POST …/live/{token}/input, first sent as raw requests, then by the live page
 * itself in a second browser (the person's), whose clicks land on a scaled-down frame. The site
 * reports what it saw (pages shown, scroll positions, the form it received), so the test reads the
 * session's browser only through the site. Validation of bodies is also covered over the host
 * double in live-input-api.test.ts.
 */

const hasChrome = chromeAvailable("live view input tests");

/** The login page puts its fields at fixed places, so the person knows where to click. */
const FIELDS = { user: { x: 190, y: 60 }, pass: { x: 190, y: 140 } };

const LOGIN = `<!doctype html><html><head><title>login</title><style>
body{margin:0}input,button{position:absolute;left:40px;width:300px;height:40px;font-size:20px;box-sizing:border-box}
#user{top:40px}#pass{top:120px}#go{top:200px}</style></head><body>
<form method="post" action="/login"><input id="user" name="user" autocomplete="off"><input id="pass" name="pass" type="password"><button id="go">Log in</button></form>
<script>addEventListener("pageshow", () => fetch("/shown?page=login"));</script></body></html>`;

const WELCOME = `<!doctype html><title>welcome</title><h1>Welcome back</h1>
<script>addEventListener("pageshow", () => fetch("/shown?page=welcome"));</script>`;

const LONG = `<!doctype html><title>long</title><body style="margin:0;height:6000px;background:linear-gradient(#fff,#345)">
<script>let t = 0; addEventListener("scroll", () => { clearTimeout(t); t = setTimeout(() => fetch("/scrolled?y=" + Math.round(scrollY)), 80); });
addEventListener("pageshow", () => fetch("/shown?page=long"));</script></body>`;

interface Session {
  session_id: string;
  cdp_url: string;
  live_view_url: string;
}

describe.skipIf(!hasChrome).each(driverCases(["pglite"]))("live view input on $driver", ({ open }) => {
  let db: TestDatabase;
  let srv: SessionServer;
  let site: Origin;
  let key: string;
  let accountId: string;
  /** What the site saw: pages shown (in order), scroll positions reported, login forms received. */
  let shown: string[] = [];
  let scrolled: number[] = [];
  let forms: string[] = [];

  const create = async (body: unknown = {}): Promise<Session & { token: string }> => {
    const res = await srv.ctx.postJson(key, "/browser", body);
    expect(res.status, await res.clone().text()).toBe(201);
    const s = (await res.json()) as Session;
    return { ...s, token: new URL(s.live_view_url).pathname.split("/").at(-1) as string };
  };
  /** POST {browser_url}/live/{token}/input over real HTTP, as the live page sends it. */
  const send = (token: string, event: unknown) =>
    fetch(`${srv.url}/browser/live/${token}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(event),
    });
  const ok = async (token: string, event: unknown) => {
    const res = await send(token, event);
    expect(res.status, `${JSON.stringify(event)}: ${await res.text()}`).toBe(204);
  };
  const times = (page: string) => shown.filter((p) => p === page).length;

  beforeAll(async () => {
    db = await open();
    site = await startOrigin({
      "/login": (req, res) => {
        if (req.method !== "POST") return html(LOGIN)(req, res);
        let body = "";
        req.on("data", (d) => {
          body += d;
        });
        req.on("end", () => {
          forms.push(body);
          res.writeHead(303, { location: "/welcome" }).end();
        });
      },
      "/welcome": html(WELCOME),
      "/long": html(LONG),
      // Headers after 2.5 s: a navigate here takes longer than the 1 s inactivity timeout below.
      "/slow": (req, res) => void setTimeout(() => html(LONG)(req, res), 2_500),
      "/shown": (req, res) => {
        shown.push(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "");
        res.writeHead(204).end();
      },
      "/scrolled": (req, res) => {
        scrolled.push(Number(new URL(req.url ?? "/", "http://x").searchParams.get("y")));
        res.writeHead(204).end();
      },
    });
    srv = await startSessionServer(db.db, {
      allowPrivateHosts: [{ host: "127.0.0.1", port: site.port }],
      host: { warmPool: 2 },
    });
    ({ key, accountId } = await srv.ctx.newKey({ plan: "pro" }));
    await srv.host.pool.filled();
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await site?.close();
    await db?.dispose();
  });

  it("a person logs in through the input endpoint alone: navigate, click, type, Backspace, Tab, Enter; then back, forward, reload", async () => {
    shown = [];
    forms = [];
    const s = await create();
    await ok(s.token, { type: "navigate", url: `${site.url}/login` });
    await waitFor(() => times("login") === 1);
    await ok(s.token, { type: "click", ...FIELDS.user });
    await ok(s.token, { type: "type", text: "alicx" });
    await ok(s.token, { type: "key", key: "Backspace" });
    await ok(s.token, { type: "type", text: "e" });
    await ok(s.token, { type: "key", key: "Tab" });
    await ok(s.token, { type: "type", text: "s3cret ü" });
    await ok(s.token, { type: "key", key: "Enter" });
    expect(await waitFor(() => forms[0])).toBe("user=alice&pass=s3cret+%C3%BC");
    await waitFor(() => times("welcome") === 1);

    // The frame shows the session's page.
    const frame = await waitFor(async () => {
      const r = await fetch(`${srv.url}/browser/live/${s.token}/frame`);
      return r.status === 200 ? r : null;
    });
    expect(frame.headers.get("content-type")).toBe("image/jpeg");

    await ok(s.token, { type: "history", action: "back" });
    await waitFor(() => times("login") === 2);
    await ok(s.token, { type: "history", action: "forward" });
    await waitFor(() => times("welcome") === 2);
    await ok(s.token, { type: "history", action: "reload" });
    await waitFor(() => times("welcome") === 3);
    expect(forms).toHaveLength(1);
    await srv.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
  }, 30_000);

  it("the live page itself, in a person's browser showing the frame scaled down, logs in and scrolls", async () => {
    shown = [];
    forms = [];
    scrolled = [];
    const s = await create({ viewport: { width: 1200, height: 800 } });
    let viewer: Browser | null = null;
    try {
      // The person's own browser (not the session's): it reaches the live page on loopback directly.
      viewer = await puppeteer.launch({
        executablePath: CHROME,
        headless: true,
        args: CHROMIUM_ARGS,
        defaultViewport: { width: 600, height: 700 },
      });
      const page = await viewer.newPage();
      const live = await page.goto(s.live_view_url);
      expect(live?.headers()["content-security-policy"]).toContain("script-src 'nonce-");
      // The address bar and Go, as a person would.
      await page.type("#url", `${site.url}/login`);
      await page.click("#bar button[type=submit]");
      await waitFor(() => times("login") === 1);
      // The frame is 1200 px wide shown in at most 600: the page maps the click back to page pixels.
      // Each new frame replaces the image element: its box and size are read in one go.
      const shownFrame = await page.waitForFunction(
        () => {
          const el = document.getElementById("frame") as HTMLImageElement | null;
          if (!el || el.naturalWidth === 0) return null;
          const r = el.getBoundingClientRect();
          return { x: r.left, y: r.top, width: r.width, natural: el.naturalWidth };
        },
        { timeout: 10_000 },
      );
      const { natural, ...box } = (await shownFrame.jsonValue()) as { x: number; y: number; width: number; natural: number };
      expect(natural).toBe(1200);
      const scale = box.width / natural;
      expect(scale).toBeLessThan(0.6);
      await page.mouse.click(box.x + FIELDS.user.x * scale, box.y + FIELDS.user.y * scale);
      await page.keyboard.type("alice");
      await page.keyboard.press("Tab");
      await page.keyboard.type("pa55 word");
      await page.keyboard.press("Enter");
      expect(await waitFor(() => forms[0])).toBe("user=alice&pass=pa55+word");

      // The wheel over the frame scrolls the session's page; End goes to its bottom.
      await page.$eval("#url", (el) => {
        (el as HTMLInputElement).value = "";
      });
      await page.type("#url", `${site.url}/long`);
      await page.keyboard.press("Enter");
      await waitFor(() => times("long") === 1);
      await page.mouse.move(box.x + 100, box.y + 100);
      await page.mouse.wheel({ deltaY: 300 });
      // 300 px of the person's wheel over a frame shown at half size is about 600 of the page's.
      expect(await waitFor(() => scrolled.find((y) => y >= 450))).toBeLessThan(1000);
      // By position, not by element: each new frame replaces the image element, which may happen
      // between finding it and clicking it ("Node is detached from document").
      await page.mouse.click(box.x + 100, box.y + 100);
      await page.keyboard.press("End");
      await waitFor(() => scrolled.find((y) => y >= 5000));
      expect(await page.$eval("#note", (el) => el.textContent)).toBe("");
    } finally {
      await viewer?.close();
    }
    await srv.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
  }, 40_000);

  it("refuses what it must: bad bodies 400 with details, other schemes and private addresses 400, unknown or ended sessions 404", async () => {
    const s = await create();
    const invalid = async (event: unknown, path: (string | number)[]) => {
      const res = await send(s.token, event);
      const body = (await res.json()) as { error: { code: string; details?: { path: unknown[] }[] } };
      expect(res.status, JSON.stringify(event)).toBe(400);
      expect(body.error.code).toBe("INVALID_INPUT");
      expect(body.error.details?.map((d) => d.path)).toContainEqual(path);
    };
    await invalid({ type: "key", key: "F5" }, ["key"]);
    await invalid({ type: "click", x: -1, y: 10 }, ["x"]);
    await invalid({ type: "type", text: "x".repeat(1001) }, ["text"]);
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "chrome://settings"]) {
      await invalid({ type: "navigate", url }, ["url"]);
    }
    // Private literals are refused before the browser tries (the egress proxy would refuse them too).
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:9/", "http://user:pw@example.com/"]) {
      await invalid({ type: "navigate", url }, ["url"]);
    }
    expect((await send("Z".repeat(32), { type: "history", action: "reload" })).status).toBe(404);
    expect((await send("nope", { type: "history", action: "reload" })).status).toBe(404);

    await srv.ctx.call(key, `/browser/${s.session_id}`, { method: "DELETE" });
    const ended = await send(s.token, { type: "history", action: "reload" });
    expect(ended.status).toBe(404);
    expect(((await ended.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    expect((await fetch(`${srv.url}/browser/live/${s.token}`)).status).toBe(404);
  }, 30_000);

  it("more than 50 events a second on one live view → 429 with Retry-After; another view is not held back", async () => {
    const [s, other] = await Promise.all([create(), create()]);
    await ok(s.token, { type: "navigate", url: `${site.url}/long` });
    // Far more than a second's worth at once. The server takes them some ms apart, and the bucket
    // refills meanwhile: at most 50 at once plus 50 a second of the burst's length get through.
    const started = Date.now();
    const statuses = await Promise.all(Array.from({ length: 300 }, () => send(s.token, { type: "history", action: "forward" })));
    const seconds = (Date.now() - started) / 1000;
    const accepted = statuses.filter((r) => r.status === 204).length;
    const limited = statuses.filter((r) => r.status === 429);
    expect(accepted + limited.length).toBe(300);
    expect(accepted).toBeGreaterThanOrEqual(50);
    expect(accepted).toBeLessThanOrEqual(50 + Math.ceil(50 * seconds) + 1);
    // Any machine that answers 300 requests in under 4 s must have refused some (here it takes about 1 s).
    if (seconds < 4) expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) expect(r.headers.get("retry-after")).toBe("1");
    await ok(other.token, { type: "navigate", url: `${site.url}/long` });
    await Promise.all([s, other].map((x) => srv.ctx.call(key, `/browser/${x.session_id}`, { method: "DELETE" })));
  }, 30_000);

  /** A session with a 1 s inactivity timeout (the API's smallest is 10 s): its row and launch made here, as the API makes them. */
  const shortLivedSession = async () => {
    const repo = sessionRepo(db.db);
    const now = new Date();
    const launch = {
      id: newId("bs"),
      accountId,
      token: randomBase62(32),
      mode: "light" as const,
      viewport: { width: 800, height: 600 },
      fingerprintSeed: "s",
      countryCode: null,
      upstream: null,
      startedAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
      inactivityMs: 1_000,
      profile: null,
    };
    await insertSessionRow(repo, {
      id: launch.id,
      token: launch.token,
      accountId,
      hostId: srv.host.hostId,
      startTime: now,
      expiresAt: launch.expiresAt,
    });
    await srv.host.start(launch);
    return { repo, launch };
  };

  it("a navigate slower than the inactivity timeout keeps the session: the input is still being delivered", async () => {
    const { repo, launch } = await shortLivedSession();
    await ok(launch.token, { type: "navigate", url: `${site.url}/slow` });
    expect((await repo.get(launch.id))?.status).not.toBe("ended");
    await waitFor(async () => (await repo.get(launch.id))?.status === "ended");
    expect((await repo.get(launch.id))?.endReason).toBe("inactivity");
  }, 30_000);

  it("input keeps a session with no client past its inactivity timeout; once it stops, the session ends as inactive", async () => {
    const { repo, launch } = await shortLivedSession();
    await ok(launch.token, { type: "navigate", url: `${site.url}/long` });
    // Input every 300 ms for three times the timeout: the session stays open throughout.
    const started = Date.now();
    while (Date.now() - started < 3_000) {
      await new Promise((r) => setTimeout(r, 300));
      await ok(launch.token, { type: "scroll", x: 10, y: 10, dy: 10 });
    }
    expect((await repo.get(launch.id))?.status).not.toBe("ended");
    const row = await waitFor(async () => {
      const r = await repo.get(launch.id);
      return r?.status === "ended" ? r : null;
    });
    expect(row.endReason).toBe("inactivity");
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
  }, 30_000);
});
