import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseCache } from "../../functions/fetch/response-cache.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { fetchCacheRepo } from "../../functions/repos/fetch-cache.repo.ts";
import { contentKey, fileBlobStore } from "../../functions/storage/blob-store.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

const files = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);

describe.each(driverCases(["pglite", "pg"]))("response cache on $driver", ({ open }) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await open();
    dir = mkdtempSync(path.join(tmpdir(), "osprey-blobs-"));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.dispose();
  });

  const entry = (urlKey: string, body: string, fetchedAt: string) => ({
    urlKey,
    finalUrl: urlKey,
    status: 200,
    headers: { "content-type": "text/html" },
    body: Buffer.from(body),
    rendered: false,
    fetchedAt: new Date(fetchedAt),
    originMaxAge: null,
  });

  it("keeps bodies in the blob store by content hash, rows in the database, and purges both", async () => {
    const cache = responseCache(fetchCacheRepo(db.db), fileBlobStore(dir), silentLogger);
    await cache.put(entry("https://a.example/", "<p>same body</p>", "2026-11-01T00:00:00Z"));
    await cache.put(entry("https://b.example/", "<p>same body</p>", "2026-11-20T00:00:00Z"));
    await cache.put(entry("https://c.example/", "<p>other</p>", "2026-11-01T00:00:00Z"));
    expect(files(dir).sort()).toEqual(
      [contentKey(Buffer.from("<p>other</p>")), contentKey(Buffer.from("<p>same body</p>"))].sort(),
    );
    expect((await cache.get("https://a.example/"))?.body.toString()).toBe("<p>same body</p>");
    expect(await cache.get("https://missing.example/")).toBeNull();

    // a and c are older than the cut-off; a's body is still used by b, c's is not.
    expect(await cache.purge(new Date("2026-11-10T00:00:00Z"))).toBe(2);
    expect(await cache.get("https://a.example/")).toBeNull();
    expect((await cache.get("https://b.example/"))?.body.toString()).toBe("<p>same body</p>");
    expect(files(dir)).toEqual([contentKey(Buffer.from("<p>same body</p>"))]);
  });

  it("reads an entry whose blob has gone as a miss", async () => {
    const blobs = fileBlobStore(dir);
    const cache = responseCache(fetchCacheRepo(db.db), blobs, silentLogger);
    await cache.put(entry("https://d.example/", "<p>d</p>", "2026-11-21T00:00:00Z"));
    await blobs.delete(contentKey(Buffer.from("<p>d</p>")));
    expect(await cache.get("https://d.example/")).toBeNull();
  });
});
