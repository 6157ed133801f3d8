import { z } from "@hono/zod-openapi";
import { SESSION_LIMITS } from "./session.schemas.ts";

/**
 * What a person on a session's live view page may do to its browser (POST {browser_url}/live/{token}/input):
 * the events a login needs, and nothing a CDP client could not already do. The host turns each into
 * CDP Input and Page commands on the active tab (containers/sessions/live-input.ts).
 */

export const LIVE_INPUT_LIMITS = {
  /** Characters of one `type` event (a pasted password fits; a page pastes more in several events). */
  textMax: 1000,
  urlMax: 2048,
  /** Events per second per live view, with as many at once (a token bucket, in memory, per process). */
  eventsPerSecond: 50,
} as const;

/** The keys a `key` event may name: the ones a form needs that text input cannot give. */
export const LIVE_KEYS = [
  "Enter",
  "Tab",
  "Backspace",
  "Delete",
  "Escape",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
] as const;
export type LiveKey = (typeof LIVE_KEYS)[number];

export const LIVE_MODIFIERS = ["Alt", "Control", "Meta", "Shift"] as const;

const coordinate = (max: number) => z.number().min(0).max(max);
const x = coordinate(SESSION_LIMITS.viewport.maxWidth).openapi({
  description: "CSS pixels from the left edge of the page's viewport, which is the frame image's own pixel grid.",
});
const y = coordinate(SESSION_LIMITS.viewport.maxHeight).openapi({
  description: "CSS pixels from the top edge of the page's viewport.",
});
const delta = z.number().min(-10_000).max(10_000);
const modifiers = z
  .array(z.enum(LIVE_MODIFIERS))
  .max(LIVE_MODIFIERS.length)
  .optional()
  .openapi({ description: "Keys held during the event (Shift+Tab, Control+click)." });

const isWebUrl = (raw: string) => {
  try {
    const { protocol } = new URL(raw);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
};

export const LiveInputSchema = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("click"),
        x,
        y,
        button: z.enum(["left", "middle", "right"]).default("left"),
        click_count: z
          .number()
          .int()
          .min(1)
          .max(3)
          .default(1)
          .openapi({ description: "2 for the second click of a double click (the DOM event's `detail`)." }),
        modifiers,
      })
      .strict(),
    z
      .object({
        type: z.literal("scroll"),
        x,
        y,
        dx: delta.default(0).openapi({ description: "Horizontal wheel delta in CSS pixels (positive: right)." }),
        dy: delta.default(0).openapi({ description: "Vertical wheel delta in CSS pixels (positive: down)." }),
      })
      .strict(),
    z
      .object({
        type: z.literal("type"),
        text: z.string().min(1).max(LIVE_INPUT_LIMITS.textMax).openapi({
          description:
            "Inserted at the focused element as one edit (CDP Input.insertText: input events, no key events), 1 to 1000 characters.",
        }),
      })
      .strict(),
    z
      .object({
        type: z.literal("key"),
        key: z.enum(LIVE_KEYS).openapi({ description: "A named key: pressed and released." }),
        modifiers,
      })
      .strict(),
    z
      .object({
        type: z.literal("navigate"),
        url: z
          .string()
          .max(LIVE_INPUT_LIMITS.urlMax)
          .refine(isWebUrl, { message: "only an absolute http:// or https:// URL can be opened" })
          .openapi({ description: "Opened in the active tab (or a new one when none is open); http and https only." }),
      })
      .strict(),
    z
      .object({
        type: z.literal("history"),
        action: z.enum(["back", "forward", "reload"]),
      })
      .strict(),
  ])
  .openapi("BrowserLiveInput");

export type LiveInputEvent = z.infer<typeof LiveInputSchema>;

export const LiveTokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: "token", in: "path" },
      description: "The token of the session's live_view_url (32 letters and digits).",
      example: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    }),
});
