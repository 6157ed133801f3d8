import { describe, expect, it } from "vitest";
import { executeAction } from "../../../containers/agent/actions.ts";
import { readState } from "../../../containers/agent/capture-step.ts";
import { type PageState, renderPageState } from "../../../containers/agent/page-state/index.ts";
import { chromeAvailable } from "../../helpers/test-session.ts";
import { settleSuite } from "./suite.ts";

/**
 * The actions' own round trips, cut to few, on real Chromium: a click lands on the point its check
 * found (after the check scrolled the element into view, smooth scrolling or not), typing sends its
 * keys without waiting for each one and still fires every key event in order, and a new document
 * that renders its view in steps just after DOMContentLoaded is waited for.
 */

describe.skipIf(!chromeAvailable("action tests"))("verified actions in few round trips", () => {
  const t = settleSuite();
  const open = (path: string) => t.open(path);
  const state = () => readState(t.session.activePage(), false);
  const named = (s: PageState, name: string) => {
    const el = s.elements.find((e) => e.name === name);
    if (!el) throw new Error(`no element "${name}" in\n${renderPageState(s)}`);
    return el.index;
  };
  const text = (selector: string) => t.session.activePage().$eval(selector, (el) => el.textContent ?? "");

  it("waits for a new document's view rendered in steps after DOMContentLoaded", async () => {
    await open("/late");
    const before = await state();
    const res = await executeAction(t.session, before, { name: "click", index: named(before, "Late view") });
    expect(res.message).toMatch(/navigated to .*\/late\/view/);
    // Read straight after the action, with no wait of its own: the settle covered the late render.
    const after = renderPageState(await state());
    expect(after).toContain("Rendered after load");
    expect(after).not.toMatch(/Loading|Rendering step/);
  });

  it("clicks a button below the fold inside a scrolled box of a smoothly scrolling page", async () => {
    await open("/far");
    const s = await state();
    const index = named(s, "Far button");
    expect(s.elements.find((e) => e.index === index)?.inViewport).toBe(false);
    const res = await executeAction(t.session, s, { name: "click", index });
    expect(res).toMatchObject({ ok: true });
    expect(res.message).toMatch(/The page changed/);
    expect(await text("#out")).toBe("Far button clicked");
  });

  it("types every key in order, clears first, and inserts characters with no key as text", async () => {
    await open("/keys");
    const s = await state();
    const typed = "Ab c!é東";
    const res = await executeAction(t.session, s, {
      name: "type",
      index: named(s, "Logged field"),
      text: typed,
      submit: false,
      clear: true,
    });
    expect(res).toMatchObject({ ok: true });
    const page = t.session.activePage();
    expect(await page.$eval("input", (el) => (el as HTMLInputElement).value)).toBe(typed);
    // One keydown per character a US keyboard has a key for, in order; é and 東 arrive as text (an input event each).
    expect(JSON.parse(await text("#log"))).toEqual(["A", "b", " ", "c", "!"]);
    // The clear's input event, then one per character.
    expect(Number(await text("#inputs"))).toBe(1 + [...typed].length);
    // Without clear, the text goes after what the field holds; Enter in a textarea is a new line, not a submit.
    const again = await state();
    const kept = await executeAction(t.session, again, {
      name: "type",
      index: named(again, "Logged field"),
      text: "!",
      submit: false,
      clear: false,
    });
    expect(kept).toMatchObject({ ok: true });
    expect(await page.$eval("input", (el) => (el as HTMLInputElement).value)).toBe(`${typed}!`);
    const notes = await state();
    await executeAction(t.session, notes, {
      name: "type",
      index: named(notes, "Notes"),
      text: "one\ntwo",
      submit: false,
      clear: true,
    });
    expect(await page.$eval("textarea", (el) => (el as HTMLTextAreaElement).value)).toBe("one\ntwo");
  });

  it("clicks a checkbox through its label once the box itself is styled away", async () => {
    await open("/keys");
    const s = await state();
    const box = s.elements.find((e) => e.role === "checkbox");
    if (!box) throw new Error(`no checkbox in\n${renderPageState(s)}`);
    // As a custom checkbox hides the real one: only its label is there to click.
    await t.session.activePage().$eval("#agree", (el) => {
      (el as HTMLElement).style.opacity = "0";
    });
    const res = await executeAction(t.session, s, { name: "click", index: box.index });
    expect(res).toMatchObject({ ok: true });
    expect(await t.session.activePage().$eval("#agree", (el) => (el as HTMLInputElement).checked)).toBe(true);
  });

  it("refuses a stale index and a field that is not a text field, typing nothing", async () => {
    await open("/keys");
    const s = await state();
    const stale = await executeAction(
      t.session,
      { ...s, capture: "an-older-capture" },
      { name: "click", index: named(s, "Notes") },
    );
    expect(stale).toMatchObject({ ok: false });
    expect(stale.message).toMatch(/is gone/);
    await open("/far");
    const far = await state();
    const button = await executeAction(t.session, far, {
      name: "type",
      index: named(far, "Far button"),
      text: "x",
      submit: false,
      clear: true,
    });
    expect(button).toMatchObject({ ok: false });
    expect(button.message).toMatch(/is not a text field/);
  });
});
