import type { Dialog, HTTPResponse, Page } from "puppeteer-core";
import { CHALLENGE_HEAD_CHARS, isBotChallenge } from "../../functions/fetch/bot-challenge.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { pageHtml } from "../browser/page-html.ts";
import type { RunSession } from "../browser/run-session.ts";

/**
 * Listeners the agent keeps on every tab of a run: JavaScript dialogs (alert, confirm, prompt) are
 * dismissed at once and their text kept for the next page state; the main document's response
 * (status and headers) is kept for the bot-wall check. `dispose` removes every listener it added.
 */

/** CAPTCHA widgets served in frames (reCAPTCHA, hCaptcha, Cloudflare Turnstile). Invisible reCAPTCHA badges are not a wall. */
const CAPTCHA_FRAME =
  /(google\.com|recaptcha\.net)\/recaptcha\/|hcaptcha\.com\/captcha|challenges\.cloudflare\.com\/cdn-cgi\/challenge-platform/i;

interface DocResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
}

export class PageWatch {
  /** JavaScript dialogs opened so far (all tabs). */
  dialogCount = 0;
  private pending: string[] = [];
  private readonly attached = new Map<Page, () => void>();
  private readonly docs = new WeakMap<Page, DocResponse>();
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  /** Attaches to tabs opened since the last call. */
  sync(session: RunSession): void {
    for (const page of session.pages()) {
      if (this.attached.has(page) || page.isClosed()) continue;
      const onDialog = (d: Dialog) => {
        this.dialogCount += 1;
        const text = `${d.type()} ${JSON.stringify(d.message().slice(0, 300))}`;
        this.pending.push(text);
        this.logger.debug("agent: page dialog dismissed", { type: d.type() });
        // A beforeunload prompt is accepted so the navigation the agent asked for goes ahead.
        (d.type() === "beforeunload" ? d.accept() : d.dismiss()).catch(() => {});
      };
      const onResponse = (res: HTTPResponse) => {
        const req = res.request();
        if (!req.isNavigationRequest() || res.frame() !== page.mainFrame()) return;
        this.docs.set(page, { url: res.url(), status: res.status(), headers: res.headers() });
      };
      page.on("dialog", onDialog);
      page.on("response", onResponse);
      this.attached.set(page, () => {
        page.off("dialog", onDialog);
        page.off("response", onResponse);
      });
    }
  }

  /** Dialog texts since the last call. */
  drainDialogs(): string[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /**
   * Why `page` is a bot wall or CAPTCHA interstitial (the fetch detector on the main document's
   * status, headers and current HTML; or a visible CAPTCHA frame), or null.
   */
  async siteBlocked(page: Page): Promise<string | null> {
    const doc = this.docs.get(page);
    const html = await pageHtml(page, CHALLENGE_HEAD_CHARS).catch(() => "");
    if (isBotChallenge(doc?.status ?? 200, doc?.headers ?? {}, html)) {
      return `${page.url()} answered with a bot-protection challenge${doc ? ` (HTTP ${doc.status})` : ""}`;
    }
    const captcha = page.frames().find((f) => CAPTCHA_FRAME.test(f.url()) && !/size=invisible/.test(f.url()));
    return captcha ? `${page.url()} shows a CAPTCHA` : null;
  }

  dispose(): void {
    for (const off of this.attached.values()) off();
    this.attached.clear();
  }
}
