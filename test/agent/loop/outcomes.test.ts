import { type AddressInfo, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { RunAbort } from "../../../containers/agent/agent.types.ts";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { runError } from "../../../schema/runs.ts";
import { CHROME } from "../../helpers/test-session.ts";
import { call, idx, provider, run, sequence, stateText, task } from "./harness.ts";
import { useLoopFixture } from "./loop-fixture.ts";

/** How runs end: output schema, budgets, blocked sites, model failures, cancel, strict mode, hooks. */

const hasChrome = isExecutable(CHROME);
const SCHEMA = {
  type: "object",
  properties: { price: { type: "number" }, currency: { type: "string" } },
  required: ["price"],
  additionalProperties: false,
};

describe.skipIf(!hasChrome)("agent loop: outcomes", () => {
  const fx = useLoopFixture();

  it("completes with a result that matches the output schema (parsed from a JSON string)", async () => {
    fx.server.setScript(
      sequence([() => call("done", { success: true, result: '{"price": 349, "currency": "USD"}' })], fx.errors),
    );
    const r = await run(task(`${fx.site.url}/product`, "Price?", { outputSchema: SCHEMA, vision: true }), {
      model: fx.openai(),
      session: fx.session,
    });
    expect(r.outcome).toEqual({ status: "COMPLETED", result: { price: 349, currency: "USD" } });
    // vision: the page state goes out with a PNG of the viewport.
    expect(fx.server.turns[0]?.messages.at(-1)?.images[0]?.mediaType).toBe("image/png");
    expect(fx.server.turns[0]?.messages[0]?.text).toContain('"additionalProperties":false');
    expect(r.events).toEqual(["step:done"]);
  });

  it("re-asks once when the result does not match the schema, then fails with TASK_FAILED", async () => {
    fx.server.setScript(
      sequence(
        [
          () => call("done", { success: true, result: { price: "349 dollars" } }),
          (t) => {
            const res = t.lastToolResults[0];
            if (!res?.text.includes("does not match the output schema: price"))
              throw new Error(`expected schema errors, got ${res?.text}`);
            return call("done", { success: true, result: { price: 349, extra: 1 } });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/product`, "Price?", { outputSchema: SCHEMA }), {
      model: fx.openai(),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED", category: "AGENT_FAILURE" } });
    if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/output schema.*extra/);
    expect(r.steps.map((s) => s.ok)).toEqual([false, false]);
  });

  it("fails with TASK_FAILED and the model's message on done(success: false)", async () => {
    fx.server.setScript(sequence([() => call("done", { success: false, message: "The site has no such product." })], fx.errors));
    const r = await run(task(`${fx.site.url}/`, "Buy a unicorn"), { model: fx.openai(), session: fx.session });
    expect(r.outcome).toMatchObject({
      status: "FAILED",
      error: { code: "TASK_FAILED", message: "The site has no such product." },
    });
  });

  it("stops with MAX_STEPS_EXCEEDED at the step budget", async () => {
    fx.server.setScript((t) => call("click", { index: idx(t, /\[(\d+) link\]Next item/) }));
    const r = await run(task(`${fx.site.url}/infinite`, "Find the last item", { maxSteps: 6 }), {
      model: fx.openai(),
      session: fx.session,
    });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "MAX_STEPS_EXCEEDED" } });
    expect(r.steps.map((s) => s.title)).toEqual(["Item 2", "Item 3", "Item 4", "Item 5", "Item 6", "Item 7"]);
    // History compaction: each step adds a few hundred characters at most, not another page state.
    const size = (i: number) => JSON.stringify(fx.server.turns[i]?.messages).length;
    expect(size(5) - size(1)).toBeLessThan(4 * 600);
  });

  it("stops with TIMEOUT while a slow page loads past the duration budget", async () => {
    fx.server.setScript(sequence([(t) => call("click", { index: idx(t, /\[(\d+) link\]Slow page/) })], fx.errors));
    const started = Date.now();
    const r = await run(task(`${fx.site.url}/`, "Open the slow page", { maxDurationMs: 2500 }), {
      model: fx.openai(),
      session: fx.session,
    });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TIMEOUT", category: "SYSTEM_FAILURE" } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("fails with TASK_FAILED when the start URL is unreachable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const r = await run(task(`http://127.0.0.1:${port}/`, "Read the page"), { model: fx.openai(), session: fx.session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
    if (r.outcome.status === "FAILED")
      expect(r.outcome.error.message).toMatch(/start URL could not be opened.*ERR_CONNECTION_REFUSED/);
  });

  it("maps a model that stays rate limited to SERVICE_BUSY with retry_after", async () => {
    fx.server.setScript(() => ({ fail: "rate_limited", retryAfter: "120" }));
    const r = await run(task(`${fx.site.url}/`, "x"), { model: provider(fx.server, "anthropic"), session: fx.session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SERVICE_BUSY", retry_after: 120 } });
    fx.server.setScript(() => ({ fail: "rate_limited" }));
    const again = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: fx.session });
    expect(again.outcome).toMatchObject({ status: "FAILED", error: { code: "SERVICE_BUSY", retry_after: 30 } });
  });

  it("maps a hanging model to TIMEOUT (run budget, and the provider's own timeout)", async () => {
    fx.server.setScript(() => ({ fail: "hang" }));
    const r = await run(task(`${fx.site.url}/`, "x", { maxDurationMs: 1500 }), { model: fx.openai(), session: fx.session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TIMEOUT", retry_after: null } });
    const own = await run(task(`${fx.site.url}/`, "x"), {
      model: provider(fx.server, "openai", { timeoutMs: 300, maxRetries: 0 }),
      session: fx.session,
    });
    expect(own.outcome).toMatchObject({ status: "FAILED", error: { code: "TIMEOUT", retry_after: 30 } });
  });

  it("ends CANCELLED when the caller aborts with reason cancelled mid-run, SERVICE_BUSY on shutdown", async () => {
    for (const [reason, expected] of [
      ["cancelled", { status: "CANCELLED" }],
      ["shutdown", { status: "FAILED", error: { code: "SERVICE_BUSY", retry_after: 5 } }],
    ] as const) {
      const ctl = new AbortController();
      let n = 0;
      fx.server.setScript(() => (n++ === 0 ? call("scroll", { direction: "down" }) : { fail: "hang" }));
      const r = await run(
        task(`${fx.site.url}/infinite`, "x"),
        { model: fx.openai(), session: fx.session },
        {
          signal: ctl.signal,
          onStep: async () => void setTimeout(() => ctl.abort(reason), 300),
        },
      );
      expect(r.outcome).toMatchObject(expected);
      expect(r.steps).toHaveLength(1);
    }
  });

  it("ends with the error of a RunAbort thrown by onStep", async () => {
    fx.server.setScript((t) => call("click", { index: idx(t, /\[(\d+) link\]Next item/) }));
    const error = runError("INSUFFICIENT_CREDITS", "The account ran out of credits.");
    const r = await run(
      task(`${fx.site.url}/infinite`, "x"),
      { model: fx.openai(), session: fx.session },
      {
        onStep: async (s) => {
          if (s.step === 2) throw new RunAbort(error);
        },
      },
    );
    expect(r.outcome).toEqual({ status: "FAILED", error });
    expect(r.steps).toHaveLength(2);
  });

  it("calls beforeFirstAction once, only before the first action that can change the page", async () => {
    fx.server.setScript(
      sequence(
        [
          () => call("scroll", { direction: "down", amount: 2 }),
          () => call("extract", { question: "what is here" }),
          (t) => {
            if (!t.lastToolResults[0]?.text.includes("# Outdoor shop")) throw new Error("no markdown");
            return call("click", { index: idx(t, /\[(\d+) link\]Search gear/) });
          },
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Next page/) }),
          () => call("done", { success: true, result: "ok" }),
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: fx.session });
    expect(fx.errors).toEqual([]);
    expect(r.events).toEqual(["step:scroll", "step:extract", "before", "step:click", "step:click", "step:done"]);
  });

  it("feeds stale indexes, broken tool JSON and a reply without a tool call back to the model", async () => {
    let n = 0;
    fx.server.setScript((t) => {
      n++;
      if (n === 1) return call("click", { index: 99 });
      if (n === 2) {
        if (!t.lastToolResults[0]?.text.includes("valid indexes are 1 to 7")) throw new Error(String(t.lastToolResults[0]?.text));
        return { fail: "malformed_tool_json", name: "click" };
      }
      if (n === 3) return { text: "I am thinking." };
      if (n === 4) {
        if (!t.latestText.includes("exactly one tool call")) throw new Error("no reminder");
        return {
          toolCalls: [
            { name: "done", arguments: { success: true, result: "x" } },
            { name: "click", arguments: { index: 1 } },
          ],
        };
      }
      throw new Error("too many turns");
    });
    const r = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: fx.session });
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "x" });
    expect(r.steps[0]).toMatchObject({ ok: false, action: { name: "click" } });
    expect(r.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(r.steps.at(-1)?.purpose).toBe("Report the result");
  });

  it("fails with TASK_FAILED after 3 unparsable replies in a row, or a second reply without a tool call", async () => {
    fx.server.setScript(() => ({ fail: "malformed_tool_json", name: "click" }));
    const broken = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: fx.session });
    expect(broken.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
    expect([broken.steps.length, fx.server.turns.length]).toEqual([0, 3]);
    fx.server.setScript(() => ({ text: "Nothing to do." }));
    const silent = await run(task(`${fx.site.url}/`, "x"), { model: provider(fx.server, "anthropic"), session: fx.session });
    expect(silent.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
    expect(fx.server.turns.length).toBe(5);
  });

  it("strict mode stops at a click that leaves the site; standard mode goes on", async () => {
    const script = () =>
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Visit our partner/) }),
          (t) => call("done", { success: true, result: stateText(t).includes("Partner site") ? "partner" : "?" }),
        ],
        fx.errors,
      );
    fx.server.setScript(script());
    const strict = await run(task(`${fx.site.url}/`, "x", { mode: "strict" }), { model: fx.openai(), session: fx.session });
    expect(strict.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
    if (strict.outcome.status === "FAILED") expect(strict.outcome.error.message).toMatch(/Strict mode.*another site/);
    fx.server.setScript(script());
    const standard = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: fx.session });
    expect(standard.outcome).toEqual({ status: "COMPLETED", result: "partner" });
  });

  it("dismisses a JS dialog and reports it; strict mode stops at it", async () => {
    const script = () =>
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) button\]Delete item/) }),
          (t) => {
            const text = stateText(t);
            if (!text.includes("Really delete the item?") || !text.includes("Kept")) throw new Error("dialog not reported");
            return call("done", { success: true, result: "kept" });
          },
        ],
        fx.errors,
      );
    fx.server.setScript(script());
    const standard = await run(task(`${fx.site.url}/dialog`, "x"), {
      model: provider(fx.server, "anthropic"),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(standard.outcome).toEqual({ status: "COMPLETED", result: "kept" });
    fx.server.setScript(script());
    const strict = await run(task(`${fx.site.url}/dialog`, "x", { mode: "strict" }), { model: fx.openai(), session: fx.session });
    expect(strict.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
  });

  it("reports a navigation the address policy refuses", async () => {
    const guarded = await fx.browser.open({ blockHosts: [new URL(fx.site.origin2Url).host] });
    try {
      fx.server.setScript(
        sequence(
          [
            () => call("navigate", { url: `${fx.site.origin2Url}/partner` }),
            (t) => {
              const res = t.lastToolResults[0];
              if (!res?.text.includes("was refused")) throw new Error(String(res?.text));
              return call("done", { success: false, message: "blocked" });
            },
          ],
          fx.errors,
        ),
      );
      const r = await run(task(`${fx.site.url}/`, "x"), { model: fx.openai(), session: guarded });
      expect(fx.errors).toEqual([]);
      expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED", message: "blocked" } });
    } finally {
      await guarded.close();
    }
  });
});
