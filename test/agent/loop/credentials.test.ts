import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../../containers/agent/agent.ts";
import type { AgentStep, AgentTask, CredentialKit } from "../../../containers/agent/agent.types.ts";
import { fieldInfo } from "../../../containers/agent/page-ops.ts";
import { capturePageState, renderPageState } from "../../../containers/agent/page-state/index.ts";
import { systemPrompt } from "../../../containers/agent/prompt.ts";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { inlineExtractor } from "../../../functions/extract/pool.ts";
import type { ItemSecret, TotpSpec } from "../../../functions/vault/providers/types.ts";
import { CredentialUnavailableError, type RunCredentialItem } from "../../../functions/vault/run-credentials.ts";
import { totpAt } from "../../../functions/vault/totp.ts";
import { html, type Origin, startOrigin } from "../../helpers/origin.ts";
import { CHROME } from "../../helpers/test-session.ts";
import { call, idx, quietLogger, sequence, stateText, task } from "./harness.ts";
import { useLoopFixture } from "./loop-fixture.ts";

/**
 * Vault credentials in the real agent loop (real Chromium, the scripted model through the OpenAI
 * provider, a login site on 127.0.0.1): fill_credential types values the model never sees, refuses
 * before revealing anything when the place is wrong, and no value reaches the model or a step
 * record, even when the site echoes it back or puts it in the address.
 */

// Canary values: "canary" must appear in no request to the model and no step record. The password
// holds the characters that encodings change (& < " space + / %).
const USER = "ada.canary-user@example.com";
const PASSWORD = 'Pw&<"canary-pass 9+/%';
const TOTP_SPEC: TotpSpec = { secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", algorithm: "SHA1", digits: 6, period: 30 };

const item = (over: Partial<RunCredentialItem> = {}): RunCredentialItem => ({
  itemId: "cred:conn_1:Personal:shop",
  label: "Shop login",
  domains: ["127.0.0.1"],
  fields: [
    { fieldId: "username", label: "Username", type: "STRING" },
    { fieldId: "password", label: "Password", type: "CONCEALED" },
  ],
  hasTotp: false,
  ...over,
});
const SECRET: ItemSecret = { fields: { username: USER, password: PASSWORD }, totp: null };

/** A CredentialKit (a plain object, as the worker builds one) that counts what it reveals. */
function kitOf(items: RunCredentialItem[], secrets: Record<string, ItemSecret | Error>) {
  const reveals: string[] = [];
  const kit: CredentialKit = {
    items,
    async reveal(itemId) {
      reveals.push(itemId);
      const s = secrets[itemId];
      if (s instanceof Error) throw s;
      if (!s) throw new CredentialUnavailableError(`vault item ${itemId} no longer exists`);
      return s;
    },
  };
  return { kit, reveals };
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${esc(title)}</title></head><body>${body}</body></html>`;
const query = (req: IncomingMessage) => new URL(req.url ?? "/", "http://x").searchParams;

const hasChrome = isExecutable(CHROME);

describe.skipIf(!hasChrome)("agent loop: vault credentials", () => {
  const fx = useLoopFixture();
  let site: Origin;
  /** What the login form sent. */
  const logins: { username: string | null; password: string | null }[] = [];

  beforeAll(async () => {
    site = await startOrigin({
      // method=get: the password lands in the address of the next page, as careless sites do.
      "/login": html(
        page(
          "Sign in",
          `<h1>Sign in</h1><form method="get" action="/account">
          <label>Username <input name="username" autocomplete="username"></label>
          <label>Password <input type="password" name="password" autocomplete="current-password"></label>
          <button>Sign in</button></form>`,
        ),
      ),
      "/account": (req, res) => {
        const q = query(req);
        logins.push({ username: q.get("username"), password: q.get("password") });
        const u = q.get("username") ?? "";
        const ok = u === USER && q.get("password") === PASSWORD;
        // The site echoes the username everywhere it can: text, title, a JSON blob, a link, an attribute.
        html(
          ok
            ? page(
                `Account of ${u}`,
                `<h1>Welcome, ${esc(u)}</h1><pre>${esc(JSON.stringify({ user: u }))}</pre>
                <a href="/logout?u=${encodeURIComponent(u)}">Log out</a><input type="hidden" name="p" value="${esc(q.get("password") ?? "")}">`,
              )
            : page("Sign in failed", "<h1>Wrong username or password</h1>"),
        )(req, res);
      },
      "/comment": html(
        page(
          "Comment",
          `<label>Comment <input name="comment"></label><label>Account password <input type="password" name="pw"></label>`,
        ),
      ),
      "/otp": html(page("Two-step", `<label>Code <input name="code" inputmode="numeric" maxlength="6"></label>`)),
    });
    // The same server as "localhost": another host name, so another site for credentials.
    site.route(
      "/outer",
      html(
        page(
          "Outer",
          `<h1>Outer</h1><iframe src="http://localhost:${site.port}/login" style="width:600px;height:300px"></iframe>`,
        ),
      ),
    );
  });
  afterAll(() => site?.close());

  const loginTask = (path: string, over: Partial<AgentTask> = {}) =>
    task(`${site.url}${path}`, "Sign in with my shop login", { maxSteps: 10, ...over });

  async function run(t: AgentTask, credentials?: CredentialKit) {
    const steps: AgentStep[] = [];
    const outcome = await runAgent(
      t,
      { model: fx.openai(), session: fx.session, extractor: inlineExtractor, logger: quietLogger, credentials },
      { signal: new AbortController().signal, beforeFirstAction: async () => {}, onStep: async (s) => void steps.push(s) },
    );
    return { outcome, steps };
  }

  /** Everything of a step that leaves the run as text (the screenshot is an image). */
  const stepText = (s: AgentStep) => JSON.stringify({ ...s, screenshot: undefined });
  const requestText = () => JSON.stringify(fx.server.requests.map((r) => r.body));

  it("logs in through a GET form with fill_credential; no value reaches the model or a step record", async () => {
    logins.length = 0;
    // An address field is no secret: the site's own address must stay readable.
    const withUrl = item({ fields: [...item().fields, { fieldId: "website", label: "Website", type: "URL" }] });
    const { kit, reveals } = kitOf([withUrl], {
      [item().itemId]: { ...SECRET, fields: { ...SECRET.fields, website: site.url } },
    });
    fx.server.setScript(
      sequence(
        [
          (t) => call("fill_credential", { index: idx(t, /Username \[(\d+) textbox/), credential: 1, field: "username" }),
          (t) =>
            call("fill_credential", { index: idx(t, /Password \[(\d+) textbox:password/), credential: 1, field: "PASSWORD" }),
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Sign in/) }),
          (t) => {
            if (!stateText(t).includes("Welcome, [credential]")) throw new Error(`not signed in:\n${stateText(t)}`);
            return call("done", { success: true, result: "signed in" });
          },
        ],
        fx.errors,
      ),
    );
    const capture = { screenshots: true, html: true, elements: true, snapshots: false, recording: false };
    const r = await run(loginTask("/login", { capture }), kit);
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "signed in" });
    expect(logins).toEqual([{ username: USER, password: PASSWORD }]);
    expect(reveals).toEqual([item().itemId, item().itemId]);

    const [user, pass, click] = r.steps;
    expect(user).toMatchObject({ ok: true, action: { name: "fill_credential", args: { credential: 1, field: "username" } } });
    expect(user?.message).toMatch(/^Filled Username of credential 1 \("Shop login"\) into \[\d+\] textbox "Username"\. /);
    expect(pass?.message).toMatch(/^Filled Password of credential 1 \("Shop login"\) into \[\d+\] textbox "Password"\. /);
    expect(Object.keys(user?.action.args ?? {}).sort()).toEqual(["credential", "field", "index", "purpose"]);
    // The account page's address holds the password (GET form) and its text the username: both scrubbed.
    expect(click?.url).toBe(`${site.url}/account?username=[credential]&password=[credential]`);
    expect(click?.title).toBe("Account of [credential]");
    expect(click?.html).toContain("Welcome, [credential]");

    for (const s of r.steps) expect(stepText(s)).not.toMatch(/canary/i);
    expect(requestText()).not.toMatch(/canary/i);
    const last = fx.server.turns.at(-1);
    expect(last && stateText(last)).toMatch(/URL: .*password=\[credential\]/);
    // The model was told what it may use, never a value.
    expect(last?.messages[0]?.text).toContain('1. "Shop login"; domains: 127.0.0.1; fields: username ("Username", STRING)');
    expect(last?.tools.map((x) => x.name)).toContain("fill_credential");
  });

  it("masks a filled field: discs on screen, `filled` in the page state, even after a show-password toggle", async () => {
    const { kit } = kitOf([item()], { [item().itemId]: SECRET });
    fx.server.setScript(
      sequence(
        [
          (t) => call("fill_credential", { index: idx(t, /Username \[(\d+) textbox/), credential: 1, field: "Username" }),
          (t) =>
            call("fill_credential", { index: idx(t, /Password \[(\d+) textbox:password/), credential: 1, field: "password" }),
          (t) => {
            if (!/Username \[\d+ textbox filled\]/.test(stateText(t))) throw new Error(`username not masked:\n${stateText(t)}`);
            return call("done", { success: true, result: "filled" });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(loginTask("/login"), kit);
    expect(fx.errors).toEqual([]);
    expect(r.outcome.status).toBe("COMPLETED");
    const tab = fx.session.activePage();
    // The site's "show password" toggle makes the password a text field: it still shows discs.
    await tab.evaluate(() => {
      (document.querySelector("input[type=password]") as HTMLInputElement).type = "text";
    });
    const fields = await tab.$$eval("input", (els) =>
      els.map((el) => ({ security: getComputedStyle(el).getPropertyValue("-webkit-text-security"), value: el.value })),
    );
    expect(fields).toEqual([
      { security: "disc", value: USER },
      { security: "disc", value: PASSWORD },
    ]);
    const infos = await Promise.all((await tab.$$("input")).map((h) => h.evaluate(fieldInfo)));
    expect(infos.map((i) => [i.secret, i.value])).toEqual([
      [true, null],
      [true, null],
    ]);
    const text = renderPageState(await capturePageState(tab));
    expect(text).toMatch(/Username \[\d+ textbox filled\]/);
    expect(text).toMatch(/Password \[\d+ textbox filled\]/);
    expect(text).not.toMatch(/canary/);
    expect(requestText()).not.toMatch(/canary/i);
  });

  it("refuses another site (the page's or a frame's) before anything is revealed", async () => {
    const bank = kitOf([item({ domains: ["bank.test"] })], { [item().itemId]: SECRET });
    fx.server.setScript(
      sequence(
        [
          (t) =>
            call("fill_credential", { index: idx(t, /Password \[(\d+) textbox:password/), credential: 1, field: "password" }),
          () => call("done", { success: false, message: "wrong site" }),
        ],
        fx.errors,
      ),
    );
    const r = await run(loginTask("/login"), bank.kit);
    expect(fx.errors).toEqual([]);
    expect(r.steps[0]?.ok).toBe(false);
    expect(r.steps[0]?.message).toBe(
      "The page is on 127.0.0.1, which is not one of credential 1's domains (bank.test); credentials only fill on their own sites.",
    );
    expect(bank.reveals).toEqual([]);

    // The page is on an allowed host, the login form in its frame is on localhost.
    const framed = kitOf([item()], { [item().itemId]: SECRET });
    fx.server.setScript(
      sequence(
        [
          (t) => call("fill_credential", { index: idx(t, /Username \[(\d+) textbox/), credential: 1, field: "username" }),
          () => call("done", { success: false, message: "framed" }),
        ],
        fx.errors,
      ),
    );
    const f = await run(loginTask("/outer"), framed.kit);
    expect(fx.errors).toEqual([]);
    expect(f.steps[0]?.ok).toBe(false);
    expect(f.steps[0]?.message).toMatch(
      /^\[\d+\] textbox "Username" \(in a frame\) is on localhost, which is not one of credential 1's domains \(127\.0\.0\.1\); credentials only fill on their own sites\.$/,
    );
    expect(framed.reveals).toEqual([]);
  });

  it("refuses a password in a plain text box, an unknown credential or field, and an item that cannot be read", async () => {
    const broken = item({ itemId: "cred:conn_1:Personal:broken", label: "Old login" });
    const { kit, reveals } = kitOf([item(), broken], {
      [item().itemId]: SECRET,
      [broken.itemId]: new CredentialUnavailableError(`vault item ${broken.itemId} could not be read: provider unreachable`),
    });
    const comment = (t: Parameters<typeof idx>[0]) => idx(t, /Comment \[(\d+) textbox/);
    fx.server.setScript(
      sequence(
        [
          (t) => call("fill_credential", { index: comment(t), credential: 1, field: "password" }),
          (t) => call("fill_credential", { index: comment(t), credential: 3, field: "username" }),
          (t) => call("fill_credential", { index: comment(t), credential: 1, field: "pin" }),
          (t) => call("fill_credential", { index: comment(t), credential: 2, field: "username" }),
          (t) => call("fill_credential", { index: comment(t), credential: "one", field: "username" }),
          () => call("done", { success: false, message: "refused" }),
        ],
        fx.errors,
      ),
    );
    const r = await run(loginTask("/comment"), kit);
    expect(fx.errors).toEqual([]);
    expect(r.steps.map((s) => s.ok)).toEqual([false, false, false, false, false, true]);
    const [plain, unknown, field, unreadable, malformed] = r.steps.map((s) => s.message);
    expect(plain).toMatch(
      /^\[\d+\] textbox "Comment" is not a password field: the Password of credential 1 is a password and fills only into a password input/,
    );
    expect(unknown).toBe('There is no credential 3; the credentials are 1 ("Shop login"), 2 ("Old login").');
    expect(field).toBe('Credential 1 has no field "pin"; its fields are "username" (Username), "password" (Password).');
    expect(unreadable).toBe(
      `Credential 2 could not be read: vault item ${broken.itemId} could not be read: provider unreachable.`,
    );
    expect(malformed).toMatch(/^invalid call of fill_credential: `credential` must be the credential's number/);
    // Only the fill whose place was right asked the vault.
    expect(reveals).toEqual([broken.itemId]);
    expect(await fx.session.activePage().$eval("input[name=comment]", (el) => (el as HTMLInputElement).value)).toBe("");
  });

  it("fills the current one-time code of an item with a TOTP seed", async () => {
    const otp = item({ hasTotp: true });
    const { kit } = kitOf([otp], { [otp.itemId]: { ...SECRET, totp: TOTP_SPEC } });
    fx.server.setScript(
      sequence(
        [
          (t) => call("fill_credential", { index: idx(t, /Code \[(\d+) textbox/), credential: 1, field: "totp" }),
          () => call("done", { success: true, result: "code entered" }),
        ],
        fx.errors,
      ),
    );
    const r = await run(loginTask("/otp"), kit);
    expect(fx.errors).toEqual([]);
    expect(r.steps[0]).toMatchObject({ ok: true });
    expect(r.steps[0]?.message).toMatch(/^Filled one-time code of credential 1 \("Shop login"\) into \[\d+\] textbox "Code"/);
    const typed = await fx.session.activePage().$eval("input[name=code]", (el) => (el as HTMLInputElement).value);
    const now = Date.now();
    // The code of the window it was typed in, or the next one's when that window was closing.
    const windows = [-30_000, 0, 30_000].map((d) => totpAt(TOTP_SPEC, new Date(now + d)));
    expect(windows).toContain(typed);
    expect(requestText()).not.toContain(typed);
    for (const s of r.steps) expect(stepText(s)).not.toContain(typed);
    expect(fx.server.turns[0]?.messages[0]?.text).toContain("one-time code (totp)");
  });

  it("without credentials (or with none in the kit) offers no fill_credential and keeps the prompt as it was", async () => {
    for (const credentials of [undefined, kitOf([], {}).kit]) {
      fx.server.turns.length = 0;
      fx.server.setScript(sequence([() => call("done", { success: true, result: "ok" })], fx.errors));
      const t = loginTask("/login");
      await run(t, credentials);
      const first = fx.server.turns[0];
      expect(first?.tools.map((x) => x.name)).not.toContain("fill_credential");
      expect(first?.messages[0]?.text).toBe(systemPrompt(t));
      expect(first?.messages[0]?.text).toContain("Do not enter credentials or personal data unless the goal gives them to you.");
    }
    expect(fx.errors).toEqual([]);
  });
});
