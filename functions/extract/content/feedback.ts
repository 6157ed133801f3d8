/**
 * Feedback prompts: the widget under a post or a help page that asks the reader to judge it ("Was
 * this helpful?", "How useful was this post?", "Rate this article"), with its buttons' leftovers
 * ("Click on a star to rate it!", "No votes so far! Be the first to rate this post."). It asks
 * about the page and says nothing itself. The prompt is found by its words as the whole text of a
 * leaf element; the widget is the largest element around it that stays short and holds no prose
 * (a short post or paragraph beside the prompt is no part of it). A sentence that
 * only mentions usefulness ("Was this approach useful for your team? We found ...") is longer
 * than a prompt and stays.
 */
import { leafText } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** "Was this helpful?", "Was the article useful?", "Did this page help you?", "Rate this post". */
const PROMPT =
  /^(?:(?:was|is|were) (?:this|the|these) (?:\w+ ){0,2}(?:helpful|useful)(?: (?:to|for) you)?|did (?:this|the) (?:\w+ ){0,2}help(?: you)?|how (?:helpful|useful) (?:was|is) (?:this|the) \w+|rate this (?:article|post|page|guide|tutorial|answer|story))\s*[?!.:]?$/i;
/** A prompt is one short line. */
const PROMPT_CHARS = 50;
/** The widget around a prompt (buttons' labels, vote counts, a thank-you) holds this much text at most. */
const WIDGET_CHARS = 300;

/** Removes the feedback prompts inside `root`, each with the short widget around it. */
export function dropFeedbackPrompts(root: Element, stats: StatsMap): void {
  const prompts: Element[] = [];
  for (const el of root.querySelectorAll("h2, h3, h4, h5, h6, p, span, div, strong, b, label, legend, td, nobr")) {
    const text = leafText(el);
    if (text && text.length <= PROMPT_CHARS && PROMPT.test(text)) prompts.push(el);
  }
  for (const prompt of prompts) {
    if (!root.contains(prompt)) continue;
    let widget = prompt;
    for (let p = widget.parentElement; p && p !== root; p = p.parentElement) {
      if ((stats.get(p)?.prose ?? 0) > 0) break;
      if ((p.textContent ?? "").replace(/\s+/g, " ").trim().length > WIDGET_CHARS) break;
      widget = p;
    }
    widget.remove();
  }
}
