import type { ToolCall, ToolDefinition } from "./model/types.ts";

/**
 * The tools the automation model may call, one per turn. Every call carries a `purpose` (why the
 * model takes this step, in its own words): it becomes the step's PROGRESS event.
 */

export type Action =
  | { name: "navigate"; url: string }
  | { name: "click"; index: number }
  | { name: "type"; index: number; text: string; submit: boolean; clear: boolean }
  | { name: "fill_credential"; index: number; credential: number; field: string }
  | { name: "select_option"; index: number; option: string }
  | { name: "scroll"; direction: "up" | "down"; amount: number; index?: number }
  | { name: "go_back" }
  | { name: "wait_for"; text?: string; seconds?: number }
  | { name: "switch_tab"; tabIndex: number }
  | { name: "extract"; question?: string }
  | { name: "read_page" }
  | { name: "done"; success: boolean; result: unknown; message?: string };

export type ActionName = Action["name"];

/** Actions that cannot change the page's content or the site's state (no beforeFirstAction needed). */
export const READ_ONLY_ACTIONS: ReadonlySet<ActionName> = new Set([
  "scroll",
  "wait_for",
  "extract",
  "read_page",
  "switch_tab",
  "done",
]);

/** Longest wait_for wait, in seconds. */
export const MAX_WAIT_SECONDS = 10;
/** Most pages one scroll moves. */
export const MAX_SCROLL_PAGES = 10;

const PURPOSE = {
  type: "string",
  description: "Why you take this step, in one short sentence (shown to the user as progress).",
};
const INDEX = { type: "integer", minimum: 1, description: "The element's [index] in the current page state." };

const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolDefinition => ({
  name,
  description,
  parameters: { type: "object", properties: { purpose: PURPOSE, ...properties }, required: ["purpose", ...required] },
});

/** Offered only to a run with vault credentials (the system prompt lists them by number). */
const FILL_CREDENTIAL = tool(
  "fill_credential",
  "Fill the field [index] with a value of one of your credentials (numbered in the system prompt) without seeing it. The field " +
    "is cleared first; press Enter or click the form's button afterwards. A password fills only into a password field, and a " +
    "credential only on its own domains.",
  {
    index: INDEX,
    credential: { type: "integer", minimum: 1, description: "The credential's number in the system prompt's list." },
    field: {
      type: "string",
      description:
        'One of the credential\'s fields, by id or label (e.g. "username", "password"), or "totp" for its one-time code.',
    },
  },
  ["index", "credential", "field"],
);

/** Offered when page states are viewport-scoped. */
const READ_PAGE = tool("read_page", "Show the whole page, every element, in the next page state.", {}, []);

/**
 * The tool list; with an output schema the `done` result is described by it. fill_credential is
 * offered when the run has at least one credential, read_page when page states are viewport-scoped.
 */
export function agentTools(
  outputSchema?: Record<string, unknown>,
  opts: { credentials?: boolean; readPage?: boolean } = {},
): ToolDefinition[] {
  const result = outputSchema
    ? { ...outputSchema, description: "The final answer; it must satisfy the output JSON schema." }
    : { description: "The final answer: a JSON object with the data asked for, or a short text." };
  return [
    tool("navigate", "Open an http(s) URL in the current tab.", { url: { type: "string" } }, ["url"]),
    tool("click", "Click the element [index] (scrolled into view first).", { index: INDEX }, ["index"]),
    tool(
      "type",
      "Type text into the field [index]. The field is cleared first unless clear is false; submit presses Enter after typing.",
      { index: INDEX, text: { type: "string" }, submit: { type: "boolean" }, clear: { type: "boolean" } },
      ["index", "text"],
    ),
    ...(opts.credentials ? [FILL_CREDENTIAL] : []),
    tool(
      "select_option",
      "Choose an option of the drop-down [index] by its visible text or its value.",
      { index: INDEX, option: { type: "string" } },
      ["index", "option"],
    ),
    tool(
      "scroll",
      "Scroll the page (or the scrollable element [index]) up or down by `amount` viewport heights (default 1).",
      { direction: { type: "string", enum: ["up", "down"] }, amount: { type: "number", minimum: 0.1 }, index: INDEX },
      ["direction"],
    ),
    tool("go_back", "Go back to the previous page of this tab.", {}, []),
    tool(
      "wait_for",
      `Wait until the text appears on the page, or for a number of seconds (at most ${MAX_WAIT_SECONDS}).`,
      { text: { type: "string" }, seconds: { type: "number", minimum: 0, maximum: MAX_WAIT_SECONDS } },
      [],
    ),
    tool(
      "switch_tab",
      "Make another open tab the active one (tabs are listed in the page state).",
      { tab_index: { type: "integer", minimum: 0 } },
      ["tab_index"],
    ),
    ...(opts.readPage ? [READ_PAGE] : []),
    tool(
      "extract",
      "Read the whole current page as Markdown (more text than the page state shows, without element indexes).",
      { question: { type: "string", description: "What you are looking for on the page." } },
      [],
    ),
    tool(
      "done",
      "Finish the run. success=true with the result when the goal is reached; success=false with a message when it cannot be reached.",
      { success: { type: "boolean" }, result, message: { type: "string" } },
      ["success"],
    ),
  ];
}

export type ParsedCall =
  | { ok: true; action: Action; purpose: string }
  | { ok: false; name: string; purpose: string; message: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const int = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined;
const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;
const bool = (v: unknown, fallback: boolean): boolean =>
  typeof v === "boolean" ? v : v === "true" ? true : v === "false" ? false : fallback;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

class ArgError extends Error {}
const need = <T>(v: T | undefined, what: string): T => {
  if (v === undefined) throw new ArgError(what);
  return v;
};

function toAction(name: string, a: Record<string, unknown>): Action {
  const index = () => need(int(a.index), "`index` must be an integer element index");
  switch (name) {
    case "navigate":
      return { name, url: need(str(a.url), "`url` must be a string") };
    case "click":
      return { name, index: index() };
    case "type":
      return {
        name,
        index: index(),
        text: need(str(a.text), "`text` must be a string"),
        submit: bool(a.submit, false),
        clear: bool(a.clear, true),
      };
    case "fill_credential": {
      const field = str(a.field)?.trim();
      return {
        name,
        index: index(),
        credential: need(int(a.credential), "`credential` must be the credential's number (an integer)"),
        field: need(field || undefined, '`field` must be the name of one of the credential\'s fields, or "totp"'),
      };
    }
    case "select_option":
      return {
        name,
        index: index(),
        option: need(str(a.option) ?? (typeof a.option === "number" ? String(a.option) : undefined), "`option` must be a string"),
      };
    case "scroll": {
      const direction = a.direction === "up" || a.direction === "down" ? a.direction : undefined;
      const amount = Math.min(MAX_SCROLL_PAGES, Math.max(0.1, num(a.amount) ?? 1));
      const at = a.index === undefined || a.index === null ? undefined : index();
      return {
        name,
        direction: need(direction, '`direction` must be "up" or "down"'),
        amount,
        ...(at === undefined ? {} : { index: at }),
      };
    }
    case "go_back":
      return { name };
    case "wait_for": {
      const text = str(a.text) || undefined;
      const seconds = num(a.seconds);
      if (text === undefined && seconds === undefined) throw new ArgError("give `text` to wait for or `seconds` to wait");
      return {
        name,
        ...(text ? { text } : {}),
        ...(seconds === undefined ? {} : { seconds: Math.min(MAX_WAIT_SECONDS, Math.max(0, seconds)) }),
      };
    }
    case "switch_tab":
      return { name, tabIndex: need(int(a.tab_index ?? a.index), "`tab_index` must be an integer") };
    case "extract":
      return { name, ...(str(a.question) ? { question: str(a.question) } : {}) };
    case "read_page":
      return { name };
    case "done": {
      const success =
        typeof a.success === "boolean" ? a.success : a.success === "true" ? true : a.success === "false" ? false : undefined;
      return {
        name,
        success: need(success, "`success` must be true or false"),
        result: a.result ?? null,
        ...(str(a.message) ? { message: str(a.message) } : {}),
      };
    }
    default:
      throw new ArgError(`unknown tool "${name}"`);
  }
}

/** A short description of an action, used when the model gave no purpose. */
export function describeAction(action: Action): string {
  switch (action.name) {
    case "navigate":
      return `Open ${action.url}`;
    case "type":
      return `Type into [${action.index}]`;
    case "fill_credential":
      return `Fill credential ${action.credential} field ${JSON.stringify(action.field)} into [${action.index}]`;
    case "click":
    case "select_option":
      return `${action.name === "click" ? "Click" : "Choose an option of"} [${action.index}]`;
    case "done":
      return action.success ? "Report the result" : "Report that the goal cannot be reached";
    default:
      return action.name.replace("_", " ");
  }
}

/** Checks a tool call's name and arguments; never throws. */
export function parseToolCall(call: ToolCall): ParsedCall {
  const args = isObj(call.arguments) ? call.arguments : {};
  const given = typeof args.purpose === "string" ? args.purpose.trim() : "";
  if (!isObj(call.arguments)) {
    return { ok: false, name: call.name, purpose: given || `Call ${call.name}`, message: "the arguments must be a JSON object" };
  }
  try {
    const action = toAction(call.name, args);
    return { ok: true, action, purpose: given || describeAction(action) };
  } catch (err) {
    if (!(err instanceof ArgError)) throw err;
    return {
      ok: false,
      name: call.name,
      purpose: given || `Call ${call.name}`,
      message: `invalid call of ${call.name}: ${err.message}`,
    };
  }
}
