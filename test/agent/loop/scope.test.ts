import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { html, type Origin, startOrigin } from "../../helpers/origin.ts";
import { CHROME } from "../../helpers/test-session.ts";
import { call, idx, run, sequence, stateText, task } from "./harness.ts";
import { useLoopFixture } from "./loop-fixture.ts";

/** Page-state scope in whole runs: viewport-first states widened by read_page, and the whole-page default. */

const hasChrome = isExecutable(CHROME);
const doc = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

describe.skipIf(!hasChrome)("agent loop: page-state scope", () => {
  const fx = useLoopFixture();
  let site: Origin;
  beforeAll(async () => {
    site = await startOrigin({
      "/article": html(
        doc(
          "Notes",
          `<h1>Notes</h1>${Array.from({ length: 30 }, (_, i) => `<p style="height:120px">Paragraph ${i + 1}</p>`).join("")}
          <footer><a href="/contact">Contact us</a></footer>`,
        ),
      ),
      "/contact": html(doc("Contact", "<p>Write to hello@example.test</p>")),
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it("viewport-first: the state counts what lies below, read_page widens the next one", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => {
            const text = stateText(t);
            if (text.includes("Contact us") || !/px below not shown: 1 elements/.test(text)) throw new Error(text);
            if (!t.tools.some((x) => x.name === "read_page")) throw new Error("read_page not offered");
            return call("read_page", {});
          },
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Contact us/) }),
          (t) => {
            const m = /Write to (\S+)/.exec(stateText(t));
            return call("done", { success: true, result: m?.[1] ?? "?" });
          },
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${site.url}/article`, "Find the contact address", { stateScope: "viewport" }), {
      model: fx.openai(),
      session: fx.session,
    });
    expect(fx.errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "hello@example.test" });
    expect(r.steps[0]).toMatchObject({
      ok: true,
      action: { name: "read_page" },
      message: "The next page state shows the whole page.",
    });
    expect(r.events[0]).toBe("step:read_page");
    // The widened state was the whole page (far text abridged as always); the prompt names the scope.
    const widened = fx.server.turns[1] ? stateText(fx.server.turns[1]) : "";
    expect(widened).toContain("Contact us");
    expect(widened).not.toContain("not shown");
    expect(fx.server.turns[0]?.messages[0]?.text).toContain("read_page");
  });

  it("whole page by default: every element in the first state, and no read_page tool", async () => {
    fx.server.setScript(
      sequence(
        [
          (t) => call("click", { index: idx(t, /\[(\d+) link\]Contact us/) }),
          () => call("done", { success: true, result: "ok" }),
        ],
        fx.errors,
      ),
    );
    const r = await run(task(`${site.url}/article`, "Find the contact address"), { model: fx.openai(), session: fx.session });
    expect(fx.errors).toEqual([]);
    expect(r.outcome.status).toBe("COMPLETED");
    expect(fx.server.turns[0]?.tools.map((x) => x.name)).not.toContain("read_page");
    expect(fx.server.turns[0]?.messages[0]?.text).not.toContain("read_page");
  });
});
