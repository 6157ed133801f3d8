import type { ModelMessage } from "./model/types.ts";
import type { PageState } from "./page-state/types.ts";

/**
 * Defence in depth for vault credentials in runs: the model never receives a credential's value,
 * but a site may echo one back ("Welcome, ada@example.com", a GET login form that puts the password
 * in the address, a JSON blob in the page). A run's `SecretScrubber` remembers every value revealed
 * to it and replaces each occurrence, in the encodings a page or URL commonly uses, with
 * `[credential]` in whatever leaves the run: page states, step records, tool results and, last of
 * all, every request to the model.
 *
 * Until something is revealed the scrubber holds no pattern and every method hands its input back
 * untouched, so runs without credentials pay nothing.
 */

export const SCRUBBED = "[credential]";
/** Shorter values are not scrubbed: "ab" would blank out half the page and protects nothing. */
export const MIN_SCRUB_LENGTH = 3;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const amp = (s: string) => s.replace(/&/g, "&amp;");
/** Text as HTML serialisation writes it in a text node (& < >) and in an attribute value (& "). */
const htmlText = (s: string) => amp(s).replace(/</g, "&lt;").replace(/>/g, "&gt;");
const htmlAttr = (s: string) => amp(s).replace(/"/g, "&quot;");
/** Text as a template engine escapes it (all five characters). */
const htmlEscape = (s: string, apos: string) => htmlText(s).replace(/"/g, "&quot;").replace(/'/g, apos);

/** Percent escapes with lower-case hex digits (some servers and libraries write them so). */
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** The forms a value takes when a page or an address echoes it. */
export function encodings(value: string): string[] {
  const uri = encodeURIComponent(value);
  // application/x-www-form-urlencoded, as a GET form puts it in the address (spaces as +).
  const form = new URLSearchParams({ v: value }).toString().slice(2);
  const json = JSON.stringify(value).slice(1, -1);
  const jsonAscii = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return [
    value,
    uri,
    lowerHex(uri),
    form,
    lowerHex(form),
    uri.replace(/%20/g, "+"),
    htmlText(value),
    htmlAttr(value),
    htmlEscape(value, "&#39;"),
    htmlEscape(value, "&#x27;"),
    json,
    jsonAscii,
    json.replace(/\//g, "\\/"),
  ];
}

export class SecretScrubber {
  private readonly values = new Set<string>();
  private pattern: RegExp | null = null;

  /** Whether anything was revealed yet (when not, every method returns its input). */
  get active(): boolean {
    return this.pattern !== null;
  }

  /** Remembers a revealed value; one shorter than MIN_SCRUB_LENGTH is ignored unless `always` (one-time codes). */
  remember(value: string, opts: { always?: boolean } = {}): void {
    if (value.length === 0 || (value.length < MIN_SCRUB_LENGTH && !opts.always) || this.values.has(value)) return;
    this.values.add(value);
    const forms = new Set<string>();
    for (const v of this.values) for (const f of encodings(v)) forms.add(f);
    // Longest first: at one position the regex takes the first alternative that matches, so a value
    // that contains another is replaced whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(sorted.map(escapeRegExp).join("|"), "g");
  }

  scrub(text: string): string {
    return this.pattern && text ? text.replace(this.pattern, SCRUBBED) : text;
  }

  /** Every string inside plain objects and arrays, scrubbed (a copy; other values as they are). */
  scrubDeep<T>(value: T): T {
    if (!this.pattern) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === "string") return this.scrub(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype)
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return walk(value) as T;
  }

  /**
   * A page state as it may leave the run. The `[n]` element markers of the text are kept as they are
   * (a numeric value must not eat a marker); the screenshot is an image and passes unchanged.
   */
  state(state: PageState): PageState {
    if (!this.pattern) return state;
    const text = state.text
      .split(/(\[\d+\])/)
      .map((part, i) => (i % 2 === 1 ? part : this.scrub(part)))
      .join("");
    return {
      ...state,
      url: this.scrub(state.url),
      title: this.scrub(state.title),
      text,
      elements: this.scrubDeep(state.elements),
    };
  }

  /** The conversation as it goes to the model: every text and every tool call's arguments (images untouched). */
  messages(messages: ModelMessage[]): ModelMessage[] {
    if (!this.pattern) return messages;
    return messages.map((m) => {
      const text = this.scrub(m.text);
      if (m.role === "assistant" && m.toolCalls)
        return { ...m, text, toolCalls: m.toolCalls.map((c) => ({ ...c, arguments: this.scrubDeep(c.arguments) })) };
      return { ...m, text };
    });
  }
}
