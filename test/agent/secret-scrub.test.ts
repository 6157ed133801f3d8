import { describe, expect, it } from "vitest";
import type { PageState } from "../../containers/agent/page-state/types.ts";
import { SCRUBBED, SecretScrubber } from "../../containers/agent/secret-scrub.ts";

/** The run's last line of defence for vault values: every form a page or an address may echo them in. */

const PASSWORD = `Pw&<"canary pass 9+/%'é`;

const state = (over: Partial<PageState>): PageState => ({
  capture: "c1",
  url: "http://127.0.0.1/",
  title: "",
  scroll: { x: 0, y: 0, width: 1, height: 1, pageWidth: 1, pageHeight: 1 },
  elements: [],
  text: "",
  ...over,
});

describe("SecretScrubber", () => {
  it("does nothing until a value is remembered, and hands back the very same objects", () => {
    const s = new SecretScrubber();
    const st = state({ text: "hello" });
    const msgs = [{ role: "user" as const, text: "hello" }];
    expect(s.active).toBe(false);
    expect(s.scrub("hello")).toBe("hello");
    expect(s.state(st)).toBe(st);
    expect(s.messages(msgs)).toBe(msgs);
    const obj = { a: ["hello"] };
    expect(s.scrubDeep(obj)).toBe(obj);
  });

  it("replaces the value in the encodings pages, addresses and JSON use", () => {
    const s = new SecretScrubber();
    s.remember(PASSWORD);
    const forms = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      new URLSearchParams({ p: PASSWORD }).toString().slice(2),
      PASSWORD.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
      PASSWORD.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"),
      PASSWORD.replace(/&/g, "&amp;").replace(/"/g, "&quot;"),
      JSON.stringify(PASSWORD).slice(1, -1),
      JSON.stringify(PASSWORD).slice(1, -1).replace("é", "\\u00e9"),
    ];
    for (const f of forms) {
      expect(s.scrub(`before ${f} after`), f).toBe(`before ${SCRUBBED} after`);
    }
    expect(
      s.scrub(`http://x.test/login?user=ada&password=${new URLSearchParams({ p: PASSWORD }).toString().slice(2)}&next=/`),
    ).toBe(`http://x.test/login?user=ada&password=${SCRUBBED}&next=/`);
  });

  it("matches lower-case percent escapes", () => {
    const s = new SecretScrubber();
    s.remember("a b/c");
    expect(s.scrub("q=a%20b%2fc")).toBe(`q=${SCRUBBED}`);
  });

  it("replaces the longest value first, and ignores values shorter than 3 characters unless told", () => {
    const s = new SecretScrubber();
    s.remember("ab");
    expect(s.active).toBe(false);
    s.remember("secret");
    s.remember("secret-and-more");
    expect(s.scrub("x secret-and-more y secret z ab")).toBe(`x ${SCRUBBED} y ${SCRUBBED} z ab`);
    s.remember("12", { always: true });
    expect(s.scrub("code 12")).toBe(`code ${SCRUBBED}`);
  });

  it("scrubs a page state without touching element markers or the screenshot", () => {
    const s = new SecretScrubber();
    s.remember("4711");
    const st = state({
      url: "http://x.test/?pin=4711",
      title: "PIN 4711",
      text: "Your PIN is 4711 [4711] [12]",
      elements: [
        {
          index: 12,
          role: "link",
          name: "4711",
          tag: "a",
          href: "http://x.test/?p=4711",
          box: { x: 0, y: 0, w: 1, h: 1 },
          inViewport: true,
        },
      ],
      screenshot: "iVBOR4711",
    });
    const out = s.state(st);
    expect(out.url).toBe(`http://x.test/?pin=${SCRUBBED}`);
    expect(out.title).toBe(`PIN ${SCRUBBED}`);
    expect(out.text).toBe(`Your PIN is ${SCRUBBED} [4711] [12]`);
    expect(out.elements[0]).toMatchObject({ name: SCRUBBED, href: `http://x.test/?p=${SCRUBBED}`, box: { x: 0 } });
    expect(out.screenshot).toBe("iVBOR4711");
    expect(st.title).toBe("PIN 4711");
  });

  it("scrubs every message text and tool call argument sent to the model, but not images", () => {
    const s = new SecretScrubber();
    s.remember("hunter22");
    const image = { mediaType: "image/png" as const, base64: "hunter22" };
    const out = s.messages([
      { role: "system", text: "sys hunter22" },
      { role: "user", text: "hunter22", image },
      { role: "assistant", text: "", toolCalls: [{ id: "1", name: "type", arguments: { text: "hunter22", n: 1 } }] },
      { role: "tool", callId: "1", text: "typed hunter22" },
    ]);
    expect(JSON.stringify(out.map((m) => ({ ...m, image: undefined })))).not.toContain("hunter22");
    expect(out[1]).toMatchObject({ text: SCRUBBED, image });
    expect(out[2]).toMatchObject({ toolCalls: [{ arguments: { text: SCRUBBED, n: 1 } }] });
  });
});
