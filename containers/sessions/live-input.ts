import type { LIVE_MODIFIERS, LiveInputEvent, LiveKey } from "../../functions/sessions/live-input.schemas.ts";

/**
 * A live view's input events as CDP commands on one page target (the control connection's session
 * to the active tab). The events were validated by LiveInputSchema; nothing here reads a file or
 * opens a scheme other than http(s).
 */

export type Send = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

/** US keyboard codes of the allowed keys, as Chromium expects them in Input.dispatchKeyEvent. */
const KEYS: Record<LiveKey, { code: string; keyCode: number; text?: string }> = {
  Enter: { code: "Enter", keyCode: 13, text: "\r" },
  Tab: { code: "Tab", keyCode: 9 },
  Backspace: { code: "Backspace", keyCode: 8 },
  Delete: { code: "Delete", keyCode: 46 },
  Escape: { code: "Escape", keyCode: 27 },
  ArrowUp: { code: "ArrowUp", keyCode: 38 },
  ArrowDown: { code: "ArrowDown", keyCode: 40 },
  ArrowLeft: { code: "ArrowLeft", keyCode: 37 },
  ArrowRight: { code: "ArrowRight", keyCode: 39 },
  Home: { code: "Home", keyCode: 36 },
  End: { code: "End", keyCode: 35 },
  PageUp: { code: "PageUp", keyCode: 33 },
  PageDown: { code: "PageDown", keyCode: 34 },
};

/** CDP's modifier bits. */
const MODIFIER_BITS: Record<(typeof LIVE_MODIFIERS)[number], number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const BUTTON_BITS = { left: 1, right: 2, middle: 4 } as const;

const modifierMask = (mods: readonly (keyof typeof MODIFIER_BITS)[] | undefined) =>
  (mods ?? []).reduce((mask, m) => mask | MODIFIER_BITS[m], 0);

/** How long a navigate waits for the navigation to commit before answering (it goes on either way). */
const NAVIGATE_WAIT_MS = 5_000;

export async function dispatchLiveInput(send: Send, event: LiveInputEvent): Promise<void> {
  switch (event.type) {
    case "click": {
      const modifiers = modifierMask(event.modifiers);
      const at = { x: event.x, y: event.y, modifiers };
      const press = { ...at, button: event.button, clickCount: event.click_count };
      await send("Input.dispatchMouseEvent", { type: "mouseMoved", ...at, button: "none" });
      await send("Input.dispatchMouseEvent", { type: "mousePressed", ...press, buttons: BUTTON_BITS[event.button] });
      await send("Input.dispatchMouseEvent", { type: "mouseReleased", ...press, buttons: 0 });
      return;
    }
    case "scroll":
      await send("Input.dispatchMouseEvent", {
        type: "mouseWheel",
        x: event.x,
        y: event.y,
        deltaX: event.dx,
        deltaY: event.dy,
        button: "none",
      });
      return;
    case "type":
      await send("Input.insertText", { text: event.text });
      return;
    case "key": {
      const def = KEYS[event.key];
      const modifiers = modifierMask(event.modifiers);
      // A key with a modifier other than Shift is a shortcut: it types nothing (as puppeteer's keyboard does).
      const text = def.text !== undefined && (modifiers & ~MODIFIER_BITS.Shift) === 0 ? def.text : undefined;
      const common = {
        key: event.key,
        code: def.code,
        windowsVirtualKeyCode: def.keyCode,
        nativeVirtualKeyCode: def.keyCode,
        modifiers,
      };
      await send("Input.dispatchKeyEvent", {
        type: text === undefined ? "rawKeyDown" : "keyDown",
        ...common,
        ...(text === undefined ? {} : { text, unmodifiedText: text }),
      });
      await send("Input.dispatchKeyEvent", { type: "keyUp", ...common });
      return;
    }
    case "navigate":
      await Promise.race([
        send("Page.navigate", { url: event.url }),
        new Promise((resolve) => setTimeout(resolve, NAVIGATE_WAIT_MS).unref()),
      ]);
      return;
    case "history": {
      if (event.action === "reload") {
        await send("Page.reload", {});
        return;
      }
      const history = (await send("Page.getNavigationHistory")) as { currentIndex: number; entries: { id: number }[] };
      const entry = history.entries[history.currentIndex + (event.action === "back" ? -1 : 1)];
      if (entry) await send("Page.navigateToHistoryEntry", { entryId: entry.id });
      return;
    }
  }
}
