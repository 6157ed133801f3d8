import { describe, expect, it } from "vitest";
import { BodyTooLarge, readCapped } from "../../functions/net/read-capped.ts";

const streamOf = (...parts: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p);
      c.close();
    },
  });

// The body reader for operator-configured services (vault providers, search upstreams, the model).
describe("readCapped (functions/net/read-capped.ts)", () => {
  it("decodes as Response.text() does: UTF-8 across chunks, a byte-order mark dropped", async () => {
    const bytes = new TextEncoder().encode('\ufeff{"name": "Café 😀"}');
    const res = () => new Response(streamOf(bytes.slice(0, 9), bytes.slice(9, 22), bytes.slice(22)));
    expect(await readCapped(res(), 1000)).toBe(await res().text());
    expect(JSON.parse(await readCapped(res(), 1000))).toEqual({ name: "Café 😀" });
  });

  it("refuses a body past the cap, declared or counted, and stops reading it", async () => {
    const declared = new Response("x".repeat(10), { headers: { "content-length": "5000" } });
    await expect(readCapped(declared, 100)).rejects.toThrow(new BodyTooLarge(100));
    let pulled = 0;
    const endless = new Response(
      new ReadableStream<Uint8Array>({
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(64));
        },
      }),
    );
    await expect(readCapped(endless, 1000)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(pulled).toBeLessThan(40);
  });
});
