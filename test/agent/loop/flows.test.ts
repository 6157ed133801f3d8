import { describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { LOGIN } from "../../helpers/fixture-site.ts";
import { CHROME } from "../../helpers/test-session.ts";
import { call, idx, provider, run, sequence, stateText, task } from "./harness.ts";
import { useLoopFixture } from "./loop-fixture.ts";

/** Whole runs on the fixture site: real Chromium, the scripted model through the real providers. */

const hasChrome = isExecutable(CHROME);

describe.skipIf(!hasChrome)("agent loop: flows", () => {
  const fx = useLoopFixture();

  it("logs in through a POST form and reports the greeting (OpenAI wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("type", { index: idx(t, /Email \[(\d+) textbox:email/), text: LOGIN.email }),
          (t) => call("type", { index: idx(t, /Password \[(\d+) textbox:password/), text: LOGIN.password }),
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Sign in/) }),
          (t) => {
            if (!stateText(t).includes("Welcome, Ada")) throw new Error("not logged in");
            return call("done", { success: true, result: { greeting: "Welcome, Ada" } });
          },
        ],
        fx.errors,
      ),
    );
    const capture = { screenshots: true, html: true, elements: true, snapshots: false, recording: false };
    const r = await run(task(`${fx.site.url}/login`, "Sign in and tell me the greeting", { capture }), {
      model: provider(fx.server, "openai"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: { greeting: "Welcome, Ada" } });
    expect(r.events).toEqual(["before", "step:type", "step:type", "step:click", "step:done"]);
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 4]);
    for (const s of r.steps) {
      expect(s.purpose.length).toBeGreaterThan(0);
      expect(s.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
      expect(s.screenshot?.subarray(0, 4).toString("hex")).toBe("89504e47");
      expect(s.html).toContain("<html");
      expect(Array.isArray(s.elements)).toBe(true);
    }
    expect(r.steps[1]?.message).toContain("the secret value");
    expect(r.steps[1]?.message).not.toContain(LOGIN.password);
    expect(r.steps[1]?.action.args.text).toBe("[secret]");
    expect(r.steps[0]?.action.args.text).toBe(LOGIN.email);
    expect(r.steps[2]).toMatchObject({ ok: true, title: "Account" });
    expect(r.steps[2]?.message).toMatch(/navigated/);
    expect(r.steps[2]?.html).toContain("Welcome, Ada");
    // The typed email shows in the state the model got next (the value took).
    const second = fx.server.turns[1];
    expect(second && stateText(second)).toContain(`="${LOGIN.email}"`);
  });

  it("pages through search results to find the cheapest product on page 2 (Anthropic wire)", async () => {
    let cheapest: { name: string | undefined; price: number } | undefined;
    fx.server.setScript(
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Next page/) }),
          (t) => {
            const text = stateText(t);
            if (!text.includes("page 2 of 3")) throw new Error("not on page 2");
            const items = [...text.matchAll(/\[\d+ link\]([^$\n]+?) \$(\d+\.\d\d)/g)].map((m) => ({
              name: m[1],
              price: Number(m[2]),
            }));
            cheapest = items.sort((a, b) => a.price - b.price)[0];
            return call("go_back", {});
          },
          (t) => {
            if (!stateText(t).includes("page 1 of 3")) throw new Error("not back on page 1");
            return call("done", { success: true, result: { name: cheapest?.name, price: cheapest?.price } });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/search?q=gear&page=1`, "Find the cheapest product on page 2"), {
      model: provider(fx.server, "anthropic"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: { name: "Water bottle", price: 12.99 } });
    // History compaction: the last request carries one full page state; the first one is a one-line summary.
    const last = fx.server.turns.at(-1);
    const states = last?.messages.filter((m) => m.text.includes("Current page state:")) ?? [];
    expect(states).toHaveLength(1);
    expect(last?.messages.some((m) => m.text.includes("(Page at step 1:"))).toBe(true);
    expect(last?.tools.map((x) => x.name)).toContain("done");
  });

  it("chooses a size and adds the product to the cart (OpenAI wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("select_option", { index: idx(t, /Size \[(\d+) combobox/), option: "Large" }),
          (t) => {
            if (!stateText(t).includes('combobox ="Large"')) throw new Error("size not selected");
            return call("click", { index: idx(t, /\[(\d+) button\]Add to cart/) });
          },
          () => call("wait_for", { text: "Cart (1)", seconds: 2 }),
          (t) => {
            if (!t.lastToolResults[0]?.text.includes("is on the page")) throw new Error("wait_for failed");
            const text = stateText(t);
            if (!text.includes("Cart (1)") || !text.includes("Added Red kayak (Large)")) throw new Error("not in cart");
            return call("done", { success: true, result: { cart: 1, size: "Large" } });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/product`, "Add a large red kayak to the cart"), {
      model: provider(fx.server, "openai"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome.status).toBe("COMPLETED");
    expect(r.steps[0]?.message).toMatch(/Selected "Large"/);
    expect(r.steps[1]?.message).toMatch(/The page changed/);
  });

  it("reports the dialog covering a button, then closes it (Anthropic wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Open terms/) }),
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Show offers/) }),
          (t) => {
            const res = t.lastToolResults[0];
            if (!res?.isError || !res.text.includes("Terms of service"))
              throw new Error(`expected a covered error, got ${res?.text}`);
            return call("click", { index: idx(t, /\[(\d+) button\]Accept terms/) });
          },
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Show offers/) }),
          (t) => {
            const m = /Today: (.+)/.exec(stateText(t));
            if (!m) throw new Error("no offer shown");
            return call("done", { success: true, result: m[1] });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/offers`, "Read today's offer"), {
      model: provider(fx.server, "anthropic"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "20% off all kayaks" });
    expect(r.steps[1]).toMatchObject({ ok: false });
    expect(r.steps[1]?.message).toMatch(/covered by <div#overlay role="dialog" aria-label="Terms of service">/);
  });

  it("fills a form inside a same-origin iframe and clicks in a cross-origin one (OpenAI wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("type", { index: idx(t, /Your name \[(\d+) textbox/), text: "Grace", submit: true }),
          (t) => {
            if (!stateText(t).includes("Thanks, Grace")) throw new Error("form not sent");
            return call("click", { index: idx(t, /\[(\d+) button\]Claim coupon/) });
          },
          (t) => {
            if (!stateText(t).includes("Coupon claimed")) throw new Error("coupon not claimed");
            return call("done", { success: true, result: { sent: true, coupon: "claimed" } });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/frames`, "Send the contact form as Grace and claim the coupon"), {
      model: provider(fx.server, "openai"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome.status).toBe("COMPLETED");
  });

  it("types into and clicks inside an open shadow root (Anthropic wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("type", { index: idx(t, /Promo code \[(\d+) textbox/), text: "SAVE10" }),
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Apply code/) }),
          (t) => {
            if (!stateText(t).includes("Code SAVE10 applied")) throw new Error("code not applied");
            return call("done", { success: true, result: "applied" });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/shadow`, "Apply the promo code SAVE10"), {
      model: provider(fx.server, "anthropic"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "applied" });
  });

  it("follows a link into a new tab and switches back (OpenAI wire)", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Catalog in a new tab/) }),
          (t) => {
            const text = stateText(t);
            if (!/Open tabs \(switch_tab\): \[0\].*\[1\].*\(active\)/.test(text) || !text.includes("Results for tents")) {
              throw new Error("new tab not active");
            }
            return call("switch_tab", { tab_index: 0 });
          },
          (t) => {
            if (!stateText(t).includes("Title: Outdoor shop")) throw new Error("not back on the first tab");
            return call("done", { success: true, result: "ok" });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/`, "Open the catalog"), {
      model: provider(fx.server, "openai"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome.status).toBe("COMPLETED");
    expect(r.steps[0]?.message).toMatch(/A new tab opened and is now active/);
    expect(r.steps[0]?.title).toBe("Search: tents (page 1)");
  });
});
