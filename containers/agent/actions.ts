import type { ElementHandle, Page } from "puppeteer-core";
import type { Extractor } from "../../functions/extract/types.ts";
import { MAX_BODY_BYTES } from "../../functions/fetch/url-outcome.ts";
import { pageHtml } from "../browser/page-html.ts";
import type { RunSession } from "../browser/run-session.ts";
import { extractReply } from "./extract-reply.ts";
import {
  type ClickCheck,
  chooseOption,
  clickCheck,
  domSignature,
  fieldInfo,
  focusField,
  scrollBy,
  sleep,
  typeKeys,
} from "./page-ops.ts";
import { findMarked, type PageState, resolveElement } from "./page-state/index.ts";
import { type Settler, type SettleWatch, settleWatch } from "./settle.ts";
import type { Action } from "./tools.ts";

/**
 * Carries out one model action on the session's active tab and checks that it took: the element
 * is resolved against the state the model saw (a stale or unknown index is refused), a click must
 * land on the element itself (not on a modal covering it), typed text must be in the field, a
 * chosen option must be selected. Failures come back as `{ ok: false, message }` for the model to
 * read; nothing here throws for a page-level problem.
 */

export interface ActionResult {
  ok: boolean;
  message: string;
  /** The action typed into a secret field (password, card number, one-time code): keep its text out of records. */
  secret?: boolean;
}

export interface ActionOptions {
  /** Reads the page as Markdown for `extract`. */
  extractor?: Extractor;
  /** Characters of Markdown `extract` returns. Default EXTRACT_MAX_CHARS. */
  maxExtractChars?: number;
  /** Longest wait for a navigation. Default 30 s. */
  navigationTimeoutMs?: number;
  /** How an action waits for the page to settle. Default `settleWatch` (signals: see settle.ts). */
  settler?: Settler;
  /** Carries out fill_credential (credential-fill.ts); absent when the run has no credentials. */
  fillCredential?: (
    session: RunSession,
    state: PageState,
    action: Extract<Action, { name: "fill_credential" }>,
  ) => Promise<ActionResult>;
}

/** Characters of page Markdown the `extract` action returns (about 3k tokens). */
export const EXTRACT_MAX_CHARS = 12_000;
const NAV_TIMEOUT_MS = 30_000;

export const fail = (message: string): ActionResult => ({ ok: false, message });
export const errText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";

export function describeEl(state: PageState, index: number): string {
  const el = state.elements.find((e) => e.index === index);
  return el ? `[${index}] ${el.role}${el.name ? ` "${el.name.slice(0, 60)}"` : ""}` : `[${index}]`;
}

const gone = (index: number) =>
  fail(`Element [${index}] is gone (the page changed since it was read); use the indexes of the new page state.`);

/** Runs `fn` on the element [index] of `state`; a stale or unknown index, or an error thrown in `fn`, is a failed result. */
export async function withElement(
  page: Page,
  state: PageState,
  index: number,
  fn: (h: ElementHandle<Element>) => Promise<ActionResult>,
): Promise<ActionResult> {
  const known = state.elements.some((e) => e.index === index);
  const range = state.elements.length
    ? `valid indexes are 1 to ${state.elements.length}`
    : "the page has no interactive elements";
  if (!known) return fail(`There is no element [${index}] in the current page state (${range}).`);
  const handle = await resolveElement(page, state, index).catch(() => null);
  if (!handle) return gone(index);
  try {
    return await fn(handle);
  } catch (err) {
    return fail(`${describeEl(state, index)}: ${errText(err)}`);
  } finally {
    // Let go of without waiting: the answer (often an error, the page having navigated) tells the step nothing.
    void handle.dispose().catch(() => {});
  }
}

/** What changed after an action (once the page settled): navigation, a new tab, or the DOM. */
export async function changes(session: RunSession, page: Page, before: Snapshot): Promise<string> {
  const settled = await before.watch.settled();
  const active = session.activePage();
  if (session.pages().length > before.tabs && active !== page) {
    if (!settled.popup) await (await (before.settler ?? settleWatch)(active)).settled();
    return `A new tab opened and is now active: ${active.url()}.`;
  }
  // A new address says it all; only the same one needs the document's signature (a reload, or a change in place).
  if (page.url() !== before.url) return `The page navigated to ${page.url()}.`;
  const now = await domSignature(page);
  if (now.doc !== before.dom.doc && now.doc !== 0) return `The page navigated to ${page.url()}.`;
  return now.sig !== before.dom.sig ? "The page changed." : "Nothing visible changed on the page.";
}

export interface Snapshot {
  url: string;
  tabs: number;
  dom: { doc: number; sig: string };
  /** Watching the page from before the action, for `changes` to wait on. */
  watch: SettleWatch;
  settler?: Settler;
}

/** What the page is before an action, and the start of the watch that tells when it settled after it. */
export async function snapshot(session: RunSession, page: Page, settler: Settler = settleWatch): Promise<Snapshot> {
  const [dom, watch] = await Promise.all([domSignature(page), settler(page)]);
  return { url: page.url(), tabs: session.pages().length, dom, watch, settler };
}

async function click(session: RunSession, page: Page, state: PageState, index: number, settler?: Settler): Promise<ActionResult> {
  const wanted = state.elements.find((e) => e.index === index);
  if (wanted && !wanted.frame) return clickInTop(session, page, state, index, wanted.tag, settler);
  return withElement(page, state, index, async (h) => {
    const inFrame = h.frame !== page.mainFrame();
    // An element of a child frame is brought into view through the frames that hold it.
    if (inFrame) await h.scrollIntoView().catch(() => {});
    // The check and the watch's start in one round trip: the watch begins before the check's scroll.
    const [check, before] = await Promise.all([h.evaluate(clickCheck), snapshot(session, page, settler)]);
    if (!check.ok) {
      await before.watch.settled(0);
      return fail(`Did not click ${describeEl(state, index)}: it ${check.reason}.`);
    }
    try {
      if (check.viaLabel) await h.evaluate((el) => (el as HTMLInputElement).labels?.[0]?.click());
      else if (inFrame) await h.click();
      // On the point found to hit the element (or its label) just now: the click lands where it was checked.
      else await page.mouse.click(check.x, check.y);
    } catch (err) {
      await before.watch.settled(0);
      throw err;
    }
    return { ok: true, message: `Clicked ${describeEl(state, index)}. ${await changes(session, page, before)}` };
  });
}

/**
 * A click on an element of the top document: found (as resolveElement would), scrolled into view
 * and checked in one evaluate, beside the watch's start, with no element handle to fetch first.
 */
async function clickInTop(
  session: RunSession,
  page: Page,
  state: PageState,
  index: number,
  tag: string,
  settler?: Settler,
): Promise<ActionResult> {
  const found = `(${findMarked})(${index}, ${JSON.stringify(state.capture)}, ${JSON.stringify(tag)})`;
  const before = snapshot(session, page, settler);
  let check: ClickCheck | null;
  try {
    check = (await page.mainFrame().evaluate(`(el => el && (${clickCheck})(el))(${found})`)) as ClickCheck | null;
  } catch (err) {
    await (await before).watch.settled(0);
    return fail(`${describeEl(state, index)}: ${errText(err)}`);
  }
  const watching = await before;
  if (!check?.ok) {
    await watching.watch.settled(0);
    return check ? fail(`Did not click ${describeEl(state, index)}: it ${check.reason}.`) : gone(index);
  }
  try {
    if (check.viaLabel) await page.mainFrame().evaluate(`(${found})?.labels?.[0]?.click()`);
    // On the point found to hit the element (or its label) just now: the click lands where it was checked.
    else await page.mouse.click(check.x, check.y);
  } catch (err) {
    await watching.watch.settled(0);
    return fail(`${describeEl(state, index)}: ${errText(err)}`);
  }
  return { ok: true, message: `Clicked ${describeEl(state, index)}. ${await changes(session, page, watching)}` };
}

async function type(
  session: RunSession,
  page: Page,
  state: PageState,
  a: Extract<Action, { name: "type" }>,
  settler?: Settler,
): Promise<ActionResult> {
  return withElement(page, state, a.index, async (h) => {
    const info = await h.evaluate(fieldInfo);
    if (!info.editable)
      return fail(`${describeEl(state, a.index)} is not a text field (it is a ${info.tag}${info.type ? ` ${info.type}` : ""}).`);
    if (h.frame !== page.mainFrame()) await h.scrollIntoView().catch(() => {});
    await h.evaluate(focusField, a.clear);
    // Key by key (sites react to key events).
    await typeKeys(page, a.text);
    const after = await h.evaluate(fieldInfo);
    let note = "";
    if (!after.secret && after.value !== null && !after.value.includes(a.text)) {
      if (a.text && !after.value) return fail(`Typed into ${describeEl(state, a.index)} but the field is still empty.`);
      note = ` The field now holds ${JSON.stringify(after.value.slice(0, 200))}.`;
    }
    let submitted = "";
    if (a.submit) {
      const before = await snapshot(session, page, settler);
      await page.keyboard.press("Enter").catch(async (err) => {
        await before.watch.settled(0);
        throw err;
      });
      submitted = ` Pressed Enter. ${await changes(session, page, before)}`;
    }
    const what = after.secret ? "the secret value" : JSON.stringify(a.text.slice(0, 100));
    return { ok: true, message: `Typed ${what} into ${describeEl(state, a.index)}.${note}${submitted}`, secret: info.secret };
  });
}

async function select(
  session: RunSession,
  page: Page,
  state: PageState,
  a: { index: number; option: string },
  settler?: Settler,
): Promise<ActionResult> {
  const { index, option } = a;
  return withElement(page, state, index, async (h) => {
    const tag = await h.evaluate((el) => el.localName);
    if (tag !== "select")
      return fail(`${describeEl(state, index)} is not a drop-down (<select>); click it, then click the option.`);
    const before = await snapshot(session, page, settler);
    const res = await h.evaluate(chooseOption, option).catch(async (err) => {
      await before.watch.settled(0);
      throw err;
    });
    if (!res.ok) {
      await before.watch.settled(0);
      return fail(
        `${describeEl(state, index)} has no option ${JSON.stringify(option)}; its options: ${res.options.join(" | ")}.`,
      );
    }
    // Checked at once, before the settle: a drop-down whose change navigates leaves no element to ask afterwards.
    const now = await h.evaluate((el) => (el as HTMLSelectElement).value).catch(() => res.value);
    const changed = await changes(session, page, before);
    if (now !== res.value) return fail(`Chose ${JSON.stringify(res.text)} in ${describeEl(state, index)} but the page reset it.`);
    return {
      ok: true,
      message: `Selected ${JSON.stringify(res.text)} in ${describeEl(state, index)}. ${changed}`,
    };
  });
}

/** Refusals of the session's address policy that arrived since `seen` entries. */
const newlyBlocked = (session: RunSession, seen: number) => session.blocked().slice(seen);

/** Opens `url` in `page`; the page's own status is not an error here (the caller looks at the result). */
export async function openUrl(
  session: RunSession,
  page: Page,
  url: string,
  timeoutMs = NAV_TIMEOUT_MS,
  settler: Settler = settleWatch,
): Promise<ActionResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`${JSON.stringify(url)} is not a valid URL (give a full http:// or https:// address).`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return fail(`Only http and https addresses can be opened, not ${parsed.protocol}.`);
  const seen = session.blocked().length;
  try {
    // The document first; then a bounded wait for what it loads that matters (a slow image does not hold the run).
    const watch = await settler(page);
    const res = await page.goto(parsed.href, { waitUntil: "domcontentloaded", timeout: timeoutMs }).catch(async (err) => {
      await watch.settled(0);
      throw err;
    });
    await watch.settled();
    const refused = newlyBlocked(session, seen).find((b) => b.url.split("#")[0] === parsed.href.split("#")[0]);
    if (refused) return fail(`Opening ${parsed.href} was refused: ${refused.reason}.`);
    const status = res ? ` (HTTP ${res.status()})` : "";
    return { ok: true, message: `Opened ${page.url()}${status}.` };
  } catch (err) {
    const refused = newlyBlocked(session, seen)[0];
    if (refused) return fail(`Opening ${parsed.href} was refused: ${refused.reason}.`);
    return fail(`Could not open ${parsed.href}: ${errText(err)}.`);
  }
}

async function extract(page: Page, a: { question?: string }, opts: ActionOptions): Promise<ActionResult> {
  if (!opts.extractor) return fail("Reading the page as Markdown is not available.");
  const html = await pageHtml(page, MAX_BODY_BYTES);
  const out = await opts.extractor.extract(html, { url: page.url(), format: "markdown", links: false, imageLinks: false });
  return { ok: true, message: extractReply(out, a.question, opts.maxExtractChars ?? EXTRACT_MAX_CHARS) };
}

async function scroll(page: Page, state: PageState, a: Extract<Action, { name: "scroll" }>): Promise<ActionResult> {
  const dy = a.direction === "down" ? a.amount : -a.amount;
  const run = async (h: ElementHandle<Element> | null) => {
    const res = h ? await h.evaluate(scrollBy, dy) : await page.evaluate(scrollBy, null, dy);
    await sleep(150);
    const where = a.index ? `inside ${describeEl(state, a.index)}` : "the page";
    if (res.moved === 0)
      return {
        ok: true,
        message: `Could not scroll ${where} ${a.direction}: it is already at the ${a.direction === "down" ? "bottom" : "top"}.`,
      };
    return {
      ok: true,
      message: `Scrolled ${where} ${a.direction} by ${Math.abs(Math.round(res.moved))}px${res.atEnd ? ` (now at the ${a.direction === "down" ? "bottom" : "top"})` : ""}.`,
    };
  };
  return a.index ? withElement(page, state, a.index, run) : run(null);
}

async function waitFor(page: Page, a: { text?: string; seconds?: number }): Promise<ActionResult> {
  if (!a.text) {
    await sleep((a.seconds ?? 1) * 1000);
    return { ok: true, message: `Waited ${a.seconds} s.` };
  }
  const timeout = (a.seconds ?? 10) * 1000;
  const found = await page
    // biome-ignore lint/performance/useDomNodeTextContent: only visible text counts as appeared
    .waitForFunction((t: string) => document.body?.innerText.includes(t), { timeout, polling: 200 }, a.text)
    .then(() => true)
    .catch(() => false);
  return found
    ? { ok: true, message: `The text ${JSON.stringify(a.text)} is on the page.` }
    : fail(`The text ${JSON.stringify(a.text)} did not appear within ${timeout / 1000} s.`);
}

/** Executes `action` on the session's active tab against `state`, the page state the model chose it from. */
export async function executeAction(
  session: RunSession,
  state: PageState,
  action: Action,
  opts: ActionOptions = {},
): Promise<ActionResult> {
  const page = session.activePage();
  try {
    switch (action.name) {
      case "navigate":
        return await openUrl(session, page, action.url, opts.navigationTimeoutMs, opts.settler);
      case "click":
        return await click(session, page, state, action.index, opts.settler);
      case "type":
        return await type(session, page, state, action, opts.settler);
      case "fill_credential":
        if (!opts.fillCredential) return fail("This run has no credentials; fill_credential is not available.");
        return await opts.fillCredential(session, state, action);
      case "select_option":
        return await select(session, page, state, action, opts.settler);
      case "scroll":
        return await scroll(page, state, action);
      case "go_back": {
        const watch = await (opts.settler ?? settleWatch)(page);
        const res = await page
          .goBack({ waitUntil: "domcontentloaded", timeout: opts.navigationTimeoutMs ?? NAV_TIMEOUT_MS })
          .catch(async (err) => {
            await watch.settled(0);
            throw err;
          });
        if (!res && page.url() === state.url) {
          await watch.settled(0);
          return fail("There is no previous page in this tab.");
        }
        await watch.settled();
        return { ok: true, message: `Went back to ${page.url()}.` };
      }
      case "wait_for":
        return await waitFor(page, action);
      case "switch_tab": {
        const tabs = session.pages();
        if (action.tabIndex < 0 || action.tabIndex >= tabs.length)
          return fail(`There is no tab ${action.tabIndex}; tabs are 0 to ${tabs.length - 1}.`);
        const now = await session.switchTo(action.tabIndex);
        return { ok: true, message: `Switched to tab ${action.tabIndex}: ${now.url()}.` };
      }
      case "extract":
        return await extract(page, action, opts);
      case "read_page":
        // The agent reads the next state of the whole page (agent.ts); nothing happens on the page.
        return { ok: true, message: "The next page state shows the whole page." };
      case "done":
        return { ok: true, message: "Finished." };
    }
  } catch (err) {
    return fail(`${action.name} failed: ${errText(err)}`);
  }
}
