import { describe, expect, it } from "vitest";
import { isForbiddenDocument, judgeClientMessage } from "../../containers/sessions/cdp-filter.ts";

/** The CDP filter as a function: every kind of message a hostile client can send, judged without a browser. */

const ctx = { proxyUrl: "http://127.0.0.1:4000", proxyBypassList: "<-loopback>", downloadDir: "/tmp/profile/Downloads" };
const judge = (msg: unknown) => judgeClientMessage(typeof msg === "string" ? msg : JSON.stringify(msg), ctx);

describe("the CDP filter", () => {
  it("refuses what is not a command, answering only when there is an id to answer", () => {
    expect(judge("not json")).toMatchObject({ kind: "refuse", id: null });
    expect(judge("[1,2]")).toMatchObject({ kind: "refuse", id: null });
    expect(judge("null")).toMatchObject({ kind: "refuse", id: null });
    expect(judge({ method: "Page.enable" })).toMatchObject({ kind: "refuse", id: null });
    expect(judge({ id: 1.5, method: "Page.enable" })).toMatchObject({ kind: "refuse", id: null });
    expect(judge({ id: 2 ** 60, method: "Page.enable" })).toMatchObject({ kind: "refuse", id: null });
    expect(judge({ id: 3 })).toMatchObject({ kind: "refuse", id: 3 });
    expect(judge({ id: 4, method: 7 })).toMatchObject({ kind: "refuse", id: 4 });
  });

  it("forwards ordinary commands as they were sent, on any target session", () => {
    const raw = JSON.stringify({ id: 5, method: "Runtime.evaluate", params: { expression: "1+1" }, sessionId: "S1" });
    expect(judgeClientMessage(raw, ctx)).toEqual({ kind: "forward", message: raw });
  });

  it("refuses escapes on the browser target and on a page's session alike, keeping the session id for the answer", () => {
    for (const method of [
      "Browser.crash",
      "Target.setRemoteLocations",
      "Tethering.bind",
      "DOM.setFileInputFiles",
      "Extensions.loadUnpacked",
      "PWA.install",
    ]) {
      expect(judge({ id: 6, method, sessionId: "S2" }), method).toMatchObject({ kind: "refuse", id: 6, sessionId: "S2" });
    }
    expect(judge({ id: 7, method: "Browser.close" })).toEqual({ kind: "end-session", id: 7, sessionId: undefined });
  });

  it("holds every new context to the session's proxy and refuses one that names its own", () => {
    const out = judge({ id: 8, method: "Target.createBrowserContext", params: { disposeOnDetach: true } });
    expect(out.kind).toBe("forward");
    expect(JSON.parse((out as { message: string }).message).params).toEqual({
      disposeOnDetach: true,
      proxyServer: "http://127.0.0.1:4000",
      proxyBypassList: "<-loopback>",
    });
    expect(judge({ id: 9, method: "Target.createBrowserContext", params: { proxyBypassList: "*" } }).kind).toBe("refuse");
  });

  it("sends allowed downloads to the session's own directory, whatever path was asked", () => {
    const out = judge({
      id: 10,
      method: "Browser.setDownloadBehavior",
      params: { behavior: "allowAndName", downloadPath: "/etc" },
    });
    expect(JSON.parse((out as { message: string }).message).params.downloadPath).toBe("/tmp/profile/Downloads");
    expect(judge({ id: 11, method: "Page.setDownloadBehavior", params: { behavior: "deny" } }).kind).toBe("forward");
  });

  it("refuses local and WebUI documents in every spelling, and drags that carry host files", () => {
    for (const url of [
      "file:///etc/passwd",
      " FILE:///x",
      "chrome://settings",
      "view-source:file:///etc",
      "devtools://x",
      "chrome-extension://a/b",
    ]) {
      expect(judge({ id: 12, method: "Page.navigate", params: { url } }).kind, url).toBe("refuse");
      expect(judge({ id: 13, method: "Target.createTarget", params: { url } }).kind, url).toBe("refuse");
      expect(isForbiddenDocument(url)).toBe(true);
    }
    expect(judge({ id: 14, method: "Page.navigate", params: { url: "https://example.com/" } }).kind).toBe("forward");
    expect(isForbiddenDocument("about:blank")).toBe(false);
    expect(judge({ id: 15, method: "Input.dispatchDragEvent", params: { data: { files: ["/etc/passwd"] } } }).kind).toBe(
      "refuse",
    );
    expect(judge({ id: 16, method: "Input.dispatchDragEvent", params: { data: { items: [] } } }).kind).toBe("forward");
  });
});
