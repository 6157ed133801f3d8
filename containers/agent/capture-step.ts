import type { Page } from "puppeteer-core";
import { MAX_BODY_BYTES } from "../../functions/fetch/url-outcome.ts";
import { pageHtml } from "../browser/page-html.ts";
import type { AgentTask } from "./agent.types.ts";
import { capturePageState, type PageState, type StateScope } from "./page-state/index.ts";

/** Reading the page after a step: the state the model sees next, and the captures the caller asked for. */

/** Page text sent to the model, in characters (about 5k tokens of text at most). */
export const STATE_MAX_TEXT_CHARS = 20_000;

/**
 * What a page state covers by default. Chosen by tokens per finished task on the agent benchmark's
 * fixture tasks (`npm run bench -- agent --only tasks`): whole-page states 4,543 tokens per task,
 * viewport-first ones (with read_page offered) 4,899 (1.08×), all 10 tasks finished either way.
 * Viewport-first wins where what the task needs is near the top of a long page (0.73-0.86×) but
 * pays a read_page step and its whole-page state where it is far down (1.3-1.6×), and its prompt
 * line and tool on every short page (1.04×). "viewport" remains an agent-internal choice.
 */
export const DEFAULT_STATE_SCOPE: StateScope = "page";

/** The page state, or a stand-in saying why it could not be read (a page mid-navigation, say); never throws. */
export async function readState(page: Page, vision: boolean, scope: StateScope = DEFAULT_STATE_SCOPE): Promise<PageState> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await capturePageState(page, { maxTextChars: STATE_MAX_TEXT_CHARS, screenshot: vision, scope });
    } catch (err) {
      if (attempt < 1 && !page.isClosed()) {
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      return {
        capture: "unreadable",
        url: page.isClosed() ? "about:blank" : page.url(),
        title: "",
        scroll: { x: 0, y: 0, width: 0, height: 0, pageWidth: 0, pageHeight: 0 },
        elements: [],
        text: `(The page could not be read: ${why}. Wait, go back or navigate elsewhere.)`,
      };
    }
  }
}

export interface StepCaptures {
  screenshot?: Buffer;
  html?: string;
  elements?: PageState["elements"];
}

/** The captures of `capture_config` for a step, from the page and the state just read; never throws. */
export async function stepCaptures(page: Page, state: PageState, capture: AgentTask["capture"]): Promise<StepCaptures> {
  const out: StepCaptures = {};
  if (capture.screenshots) {
    if (state.screenshot) out.screenshot = Buffer.from(state.screenshot, "base64");
    else {
      const png = await page.screenshot({ type: "png" }).catch(() => null);
      if (png) out.screenshot = Buffer.from(png);
    }
  }
  if (capture.html) {
    const html = await pageHtml(page, MAX_BODY_BYTES).catch(() => null);
    if (html !== null) out.html = html;
  }
  if (capture.elements) out.elements = state.elements;
  return out;
}
