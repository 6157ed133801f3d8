import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentKey } from "../../functions/storage/blob-store.ts";
import { s3BlobStore } from "../../functions/storage/s3-blob-store.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { article, html, type Origin, startOrigin } from "../helpers/origin.ts";

/**
 * A real feature on the S3 store: the fetch API's response cache keeps bodies as blobs, so a
 * cached answer is read back from the bucket (fauxqs) rather than from the origin.
 */

const TEXT = [
  "Ospreys hunt fish by diving feet first into the water and carry their catch head forward to cut drag.",
  "They return to the same nest for many years and add new material to it every breeding season.",
];

describe.each(driverCases(["pglite"]))("fetch cache bodies in S3 ($driver)", ({ open }) => {
  let db: TestDatabase;
  let fauxqs: FauxqsServer;
  let client: S3Client;
  let origin: Origin;
  let ctx: TestContext;
  let key: string;
  const bucket = "osprey-fetch-cache";

  beforeAll(async () => {
    [db, fauxqs, origin] = await Promise.all([
      open(),
      startFauxqs({ port: 0, logger: false }),
      startOrigin({ "/page": html(article("Ospreys", TEXT)) }),
    ]);
    fauxqs.createBucket(bucket);
    client = new S3Client({
      endpoint: fauxqs.address,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
    ctx = createTestContext(db.db, {
      fetch: {
        config: { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] },
        blobs: s3BlobStore({ client, bucket, prefix: "cache" }),
      },
    });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    client?.destroy();
    await Promise.allSettled([origin?.close(), fauxqs?.stop(), db?.dispose()]);
  });

  const fetchPage = async (body: Record<string, unknown>) => {
    const res = await ctx.postJson(key, "/fetch", body);
    expect(res.status).toBe(200);
    return (await res.json()) as { results: { url: string; text?: string }[]; errors: unknown[] };
  };

  it("stores the fetched body in the bucket and answers a cached fetch from it", async () => {
    const url = `${origin.url}/page`;
    const live = await fetchPage({ urls: [url], ttl: 0 });
    expect(live.errors).toEqual([]);
    const hits = origin.hits.get("/page");
    expect(hits).toBe(1);

    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "cache/" }));
    const keys = (listed.Contents ?? []).map((o) => o.Key);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^cache\/[0-9a-f]{64}$/);
    // Content addressing: the object's name is the hash of the body the origin sent.
    const stored = await s3BlobStore({ client, bucket, prefix: "cache" }).get(String(keys[0]).slice("cache/".length));
    expect(stored && contentKey(stored)).toBe(String(keys[0]).slice("cache/".length));
    expect(stored?.toString()).toContain("feet first into the water");

    const cached = await fetchPage({ urls: [url] });
    expect(origin.hits.get("/page")).toBe(hits);
    expect(cached.results[0]?.text).toBe(live.results[0]?.text);
    expect(cached.results[0]?.text).toContain("feet first into the water");
  });
});
