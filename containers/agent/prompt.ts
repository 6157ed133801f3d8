import type { RunCredentialItem } from "../../functions/vault/run-credentials.ts";
import type { AgentTask } from "./agent.types.ts";
import { DEFAULT_STATE_SCOPE } from "./capture-step.ts";
import type { ModelMessage } from "./model/types.ts";
import { type PageState, renderPageState } from "./page-state/index.ts";

/** The agent's messages: the system prompt, the goal, and each turn's page state (older states compacted). */

/**
 * The credentials section of the system prompt: each item by number, with its domains and field
 * names (never a value), and how fill_credential uses them.
 */
export function credentialsSection(items: readonly RunCredentialItem[]): string[] {
  const lines = [
    "",
    "Credentials: the user's vault gives you these logins. You never see their values: fill a field with fill_credential (the",
    "credential's number, one of its fields or \"totp\" for its one-time code, and the field's index). A filled field shows as",
    "`filled` in the page state, and wherever the site repeats a value it appears as [credential]. A credential fills only on its",
    "own domains (and their subdomains), and a password only into a password field.",
  ];
  items.forEach((item, i) => {
    const fields = item.fields.map((f) => `${f.fieldId} (${JSON.stringify(f.label)}, ${f.type})`);
    if (item.hasTotp) fields.push("one-time code (totp)");
    lines.push(
      `${i + 1}. ${JSON.stringify(item.label)}; domains: ${item.domains.join(", ") || "(none)"}; fields: ${fields.join(", ") || "(none)"}`,
    );
  });
  return lines;
}

const NO_CREDENTIALS_RULE = "- Do not enter credentials or personal data unless the goal gives them to you.";
const CREDENTIALS_RULE =
  "- Log in only with fill_credential and the credentials listed below; never type a password or one-time code yourself. Do not\n" +
  "  enter other personal data unless the goal gives it to you.";

/** The system prompt; `credentials` (the run's vault items, when it has any) adds their list and the fill_credential rule. */
export function systemPrompt(task: AgentTask, credentials: readonly RunCredentialItem[] = []): string {
  const lines = [
    "You operate a web browser to reach a user's goal. Each turn you receive the current page state and call exactly one tool.",
    "",
    "The page state starts with the page's URL, title and scroll position, followed by the visible text of the page. Every element you",
    'can interact with appears inline as `[index role "name" …]`, e.g. `[12 button "Log in"]` or `[3 textbox:email =""]`; use that',
    "number as `index` in click, type, select_option and scroll. Indexes change whenever the page changes: only use indexes from the",
    "latest page state. `=` shows a field's current value, `options:` a drop-down's choices. Text from frames and shadow roots is",
    "included where it appears on the page. When a modal dialog is open only its elements are listed.",
    "",
    "Rules:",
    "- Give every call a short `purpose` saying what you are doing and why; it is shown to the user as progress.",
    "- After each action you are told what happened (an error when it failed: read it and adapt) and you get the new page state.",
    "- If an element is covered by a popup, cookie banner or dialog, close or answer that first.",
    (task.stateScope ?? DEFAULT_STATE_SCOPE) === "viewport"
      ? "- The page state covers the viewport ±500 px; `(… px below not shown …)` lines count the rest: scroll, or call read_page."
      : "- Scroll to see more of a long page; use extract to read the whole page as text when the state is not enough.",
    "- Only report what you actually saw on the pages. Never invent data, prices, names or results.",
    credentials.length ? CREDENTIALS_RULE : NO_CREDENTIALS_RULE,
    "- When the goal is reached, call done with success=true and the result. If it cannot be reached (the site refuses, the data does",
    "  not exist, you are stuck), call done with success=false and a message explaining why.",
    `- You have at most ${task.maxSteps} steps and ${Math.round(task.maxDurationMs / 1000)} seconds; finish as soon as you can.`,
  ];
  if (task.mode === "strict") {
    lines.push("- Strict mode: the run stops at the first failed action or unexpected page; act precisely.");
  }
  if (credentials.length) lines.push(...credentialsSection(credentials));
  if (task.outputSchema) {
    lines.push(
      "",
      "The `result` of done must be JSON that satisfies this JSON schema exactly (types, required fields, no extra fields where not allowed):",
      JSON.stringify(task.outputSchema),
    );
  } else {
    lines.push(
      "",
      "The `result` of done is a JSON object with the data the goal asks for, or a short text when it asks for none.",
    );
  }
  return lines.join("\n");
}

export function goalMessage(task: AgentTask): string {
  return `Goal: ${task.goal}\n\nStart URL: ${task.url}`;
}

export interface StateNotes {
  step: number;
  maxSteps: number;
  secondsLeft: number;
  tabs: { url: string; title: string }[];
  activeTab: number;
  /** JavaScript dialogs the page opened since the last state (they were dismissed). */
  dialogs: string[];
}

export function stateMessage(state: PageState, notes: StateNotes): string {
  const head = [`Step ${notes.step} of ${notes.maxSteps}; about ${Math.max(0, Math.round(notes.secondsLeft))} s left.`];
  if (notes.tabs.length > 1) {
    const tabs = notes.tabs.map(
      (t, i) => `[${i}] ${JSON.stringify(t.title.slice(0, 60))} ${t.url}${i === notes.activeTab ? " (active)" : ""}`,
    );
    head.push(`Open tabs (switch_tab): ${tabs.join("; ")}`);
  }
  for (const d of notes.dialogs) head.push(`The page opened a JavaScript dialog (dismissed): ${d}`);
  return `${head.join("\n")}\nCurrent page state:\n${renderPageState(state)}`;
}

const OLD_TOOL_TEXT_MAX = 400;

/**
 * The conversation sent to the model. Only the latest page state goes out in full: when a new one
 * is added, the previous one is replaced by a one-line summary (URL and title), its screenshot is
 * dropped, and long tool results older than the latest turn (extracted Markdown) are cut to a few
 * hundred characters, so a request's size stays about one page state plus one line per step.
 */
export class History {
  readonly messages: ModelMessage[];
  private lastState = -1;
  private lastStateSummary = "";

  constructor(task: AgentTask, credentials: readonly RunCredentialItem[] = []) {
    this.messages = [
      { role: "system", text: systemPrompt(task, credentials) },
      { role: "user", text: goalMessage(task) },
    ];
  }

  push(...msgs: ModelMessage[]): void {
    this.messages.push(...msgs);
  }

  /** Adds the current page state as a user message and compacts everything older. */
  pushState(state: PageState, notes: StateNotes, screenshot?: string): void {
    if (this.lastState >= 0) this.messages[this.lastState] = { role: "user", text: this.lastStateSummary };
    for (let i = 2; i < this.messages.length; i++) {
      const m = this.messages[i];
      if (m?.role === "tool" && m.text.length > OLD_TOOL_TEXT_MAX && i < this.messages.length - 4) {
        this.messages[i] = { ...m, text: `${m.text.slice(0, OLD_TOOL_TEXT_MAX)}… (shortened)` };
      }
    }
    const text = stateMessage(state, notes);
    this.messages.push(
      screenshot ? { role: "user", text, image: { mediaType: "image/png", base64: screenshot } } : { role: "user", text },
    );
    this.lastState = this.messages.length - 1;
    this.lastStateSummary = `(Page at step ${notes.step}: ${state.url} "${state.title.slice(0, 80)}"; replaced by a newer state.)`;
  }
}
