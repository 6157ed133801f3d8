import type { ExtractOutcome } from "../../functions/extract/types.ts";

/** What `extract` tells the model: the page's Markdown cut to `max` characters, or why there is none. */
export function extractReply(out: ExtractOutcome, question: string | undefined, max: number): string {
  if (!out.ok) {
    const why = out.error === "empty_content" ? out.message : undefined;
    return why ? `The page could not be read as Markdown. ${why}` : "The page has no readable text content.";
  }
  const text = typeof out.page.text === "string" ? out.page.text : JSON.stringify(out.page.text);
  const cut = text.length > max ? `${text.slice(0, max)}\n\n(${text.length - max} more characters left out)` : text;
  const q = question ? `Looking for: ${question}\n` : "";
  return `${q}Page content as Markdown:\n${cut}`;
}
