import { afterAll, describe, expect, it } from "vitest";
import { createExtractorPool, inlineExtractor } from "../../functions/extract/pool.ts";
import { ExtractionLimitError } from "../../functions/extract/types.ts";
import { writePdf } from "../pdf/pdf-writer.ts";

const page = (n: number) =>
  `<html lang="en"><head><title>Page ${n}</title></head><body><nav><a href="/">Home</a></nav><article><h1>Heading ${n}</h1>${"<p>Ospreys dive feet first into the water to catch fish, and carry them head first to reduce drag. </p>".repeat(20)}</article></body></html>`;
const opts = { url: "https://example.com/a", format: "markdown" as const, links: true, imageLinks: false };

// The worker-thread pool the server extracts with: same results as inline, HTML and PDF.
describe("extractor pool", () => {
  const pool = createExtractorPool({ size: 2 });
  afterAll(() => pool.close());

  it("gives the same outcome as inline extraction, for many pages at once", async () => {
    const pages = Array.from({ length: 12 }, (_, i) => page(i));
    const [pooled, inline] = await Promise.all([
      Promise.all(pages.map((p) => pool.extract(p, opts))),
      Promise.all(pages.map((p) => inlineExtractor.extract(p, opts))),
    ]);
    expect(pooled).toEqual(inline);
    expect(pooled[3]).toMatchObject({ ok: true, page: { title: "Page 3" } });
  });

  it("extracts PDFs in the worker and leaves the caller's bytes intact", async () => {
    const bytes = writePdf({ pages: [["Fish eagles of the world."]], info: { title: "Raptors", author: "A. Birder" } });
    const copy = new Uint8Array(bytes);
    const out = await pool.pdf(bytes, {});
    expect(out).toMatchObject({ ok: true, title: "Raptors", author: "A. Birder" });
    expect(out.ok && out.text).toContain("Fish eagles of the world.");
    expect(bytes).toEqual(copy);
  });

  it("replaces a worker whose task runs past the limit, and rejects that task", async () => {
    const strict = createExtractorPool({ size: 1, taskTimeoutMs: 5 });
    const huge = page(0).replace("</article>", `${"<p>More text in a very long article body. </p>".repeat(40_000)}</article>`);
    const late = strict.extract(huge, opts);
    await expect(late).rejects.toThrow("extraction took longer than 0.005 s");
    await expect(late).rejects.toBeInstanceOf(ExtractionLimitError);
    await expect(late).rejects.toMatchObject({ limit: "time" });
    await strict.close();
    await expect(strict.extract(page(1), opts)).rejects.toThrow(/closed/);
  });

  it("starts a task's time budget once its worker has loaded, so a replaced worker's start is not charged to the next page", async () => {
    // Workers that take 0.6 s to start (the real module, loaded after a wait), under a 0.3 s budget.
    const real = new URL("../../functions/extract/extract.worker.ts", import.meta.url).href;
    const slow = `const t = Date.now(); while (Date.now() - t < 600) {} await import(${JSON.stringify(real)});`;
    const tight = createExtractorPool({
      size: 1,
      taskTimeoutMs: 300,
      workerUrl: new URL(`data:text/javascript,${encodeURIComponent(slow)}`),
    });
    const huge = page(0).replace("</article>", `${"<p>More text in a very long article body. </p>".repeat(40_000)}</article>`);
    const [late, next] = await Promise.allSettled([tight.extract(huge, opts), tight.extract(page(1), opts)]);
    expect(late).toMatchObject({ status: "rejected", reason: { limit: "time" } });
    expect(next).toMatchObject({ status: "fulfilled", value: { ok: true, page: { title: "Page 1" } } });
    await tight.close();
  });

  it("answers the pages waiting when its worker cannot start, rather than leaving them waiting, and tries again", async () => {
    const broken = createExtractorPool({
      size: 1,
      workerUrl: new URL("data:text/javascript,throw new Error('no extractor here')"),
    });
    await expect(broken.extract(page(1), opts)).rejects.toThrow("the extraction worker did not start: no extractor here");
    // The next worker, a second later, fails the same way: the next page hears so too.
    await expect(broken.extract(page(2), opts)).rejects.toThrow("the extraction worker did not start");
    await broken.close();
    await expect(broken.extract(page(3), opts)).rejects.toThrow(/closed/);
  });

  it("rejects a page whose worker ran out of memory with ExtractionLimitError('memory'), and reads the next page", async () => {
    // A worker that dies as Node ends one past its heap (ERR_WORKER_OUT_OF_MEMORY) during its second page.
    // A real one needs gigabytes here (worker heaps are not capped: see pool.ts), so it stands in.
    const real = new URL("../../functions/extract/extract.worker.ts", import.meta.url).href;
    const source = `import { parentPort } from "node:worker_threads";
      const post = parentPort.postMessage.bind(parentPort);
      let results = 0;
      parentPort.postMessage = (msg, transfer) => {
        if (msg.id === undefined || ++results !== 2) return post(msg, transfer);
        // The second page's answer never comes: the worker ends as Node ends one out of memory.
        setImmediate(() => {
          throw Object.assign(new Error("JS heap out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
        });
      };
      await import(${JSON.stringify(real)});`;
    const dying = createExtractorPool({ size: 1, workerUrl: new URL(`data:text/javascript,${encodeURIComponent(source)}`) });
    try {
      expect(await dying.extract(page(1), opts)).toMatchObject({ ok: true });
      const err = await dying.extract(page(2), opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExtractionLimitError);
      expect(err).toMatchObject({ limit: "memory", message: "extraction ran out of memory" });
      // The replacement worker reads the next page (its own second task is the page after).
      expect(await dying.extract(page(3), opts)).toMatchObject({ ok: true, page: { title: "Page 3" } });
    } finally {
      await dying.close();
    }
  });
});
