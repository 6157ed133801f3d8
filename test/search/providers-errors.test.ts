import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBraveProvider } from "../../functions/search/providers/brave.ts";
import { MAX_UPSTREAM_BODY_BYTES } from "../../functions/search/providers/http.ts";
import { createOpenAlexProvider } from "../../functions/search/providers/openalex.ts";
import { createSearxngProvider, SEARXNG_JSON_DISABLED } from "../../functions/search/providers/searxng.ts";
import { ProviderError, type SearchProvider, type SearchQuery } from "../../functions/search/types.ts";
import { FIXTURE_NOW } from "../helpers/search-upstream-fixtures.ts";
import { searchQuery as query, startBrave, startOpenAlex, startSearxng, type UpstreamStub } from "../helpers/search-upstreams.ts";

/** Upstream failures: every kind becomes a ProviderError with a useful message and no API key in it. */

const KEY = "brv-secret-key-123";
const OA_KEY = "oa/secret+key=9";
const now = () => FIXTURE_NOW;

let searxng: UpstreamStub;
let brave: UpstreamStub;
let openalex: UpstreamStub;
beforeAll(async () => {
  [searxng, brave, openalex] = await Promise.all([startSearxng(), startBrave(KEY), startOpenAlex()]);
});
afterAll(() => Promise.all([searxng.close(), brave.close(), openalex.close()]));

async function failure(provider: SearchProvider, q: SearchQuery, signal = new AbortController().signal): Promise<ProviderError> {
  const err = await provider.search(q, signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  const pe = err as ProviderError;
  expect(pe.provider).toBe(provider.name);
  for (const secret of [KEY, OA_KEY, encodeURIComponent(OA_KEY)]) expect(pe.message).not.toContain(secret);
  return pe;
}

const cases = () =>
  [
    { stub: searxng, provider: createSearxngProvider({ baseUrl: searxng.url, now, timeoutMs: 150 }), q: query() },
    { stub: brave, provider: createBraveProvider({ apiKey: KEY, baseUrl: brave.url, now, timeoutMs: 150 }), q: query() },
    {
      stub: openalex,
      provider: createOpenAlexProvider({ baseUrl: openalex.url, apiKey: OA_KEY, timeoutMs: 150 }),
      q: query({ domainType: "research_paper" }),
    },
  ] as const;

describe("upstream errors", () => {
  it("SearXNG 403: the instance must enable its JSON format", async () => {
    const off = await startSearxng({ jsonEnabled: false });
    try {
      const err = await failure(createSearxngProvider({ baseUrl: off.url }), query());
      expect(err.status).toBe(403);
      expect(err.message).toBe(SEARXNG_JSON_DISABLED);
      expect(err.message).toContain("search.formats");
      expect(err.message).toContain("settings.yml");
    } finally {
      await off.close();
    }
  });

  it("Brave 401/403: a bad key, never repeated (Brave's error body echoes it)", async () => {
    const err = await failure(createBraveProvider({ apiKey: "wrong-key-456", baseUrl: brave.url }), query());
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/^brave rejected the API key \(401\): The provided subscription token is invalid\./);
    const wrong = await createBraveProvider({ apiKey: "wrong-key-456", baseUrl: brave.url })
      .search(query(), new AbortController().signal)
      .catch((e: ProviderError) => e.message);
    expect(wrong).not.toContain("wrong-key-456");
    brave.behave({ kind: "status", status: 403 });
    try {
      expect((await failure(createBraveProvider({ apiKey: KEY, baseUrl: brave.url }), query())).message).toMatch(
        /^brave rejected the API key \(403\)/,
      );
    } finally {
      brave.behave({ kind: "ok" });
    }
  });

  it("429: rate limited, with Retry-After in seconds or as an HTTP date", async () => {
    for (const { stub, provider, q } of cases()) {
      stub.behave({ kind: "status", status: 429, retryAfter: "30" });
      try {
        const err = await failure(provider, q);
        expect(err.status).toBe(429);
        expect(err.message).toBe(`${provider.name} rate limited the request (429); retry after 30 s`);
      } finally {
        stub.behave({ kind: "ok" });
      }
    }
    openalex.behave({ kind: "status", status: 429, retryAfter: new Date(Date.now() + 120_000).toUTCString() });
    try {
      const err = await failure(cases()[2].provider, query({ domainType: "research_paper" }));
      expect(err.message).toMatch(/retry after 1[12]\d s$/);
    } finally {
      openalex.behave({ kind: "ok" });
    }
  });

  it("5xx: an upstream error, with the upstream's reason but no key (OpenAlex's body echoes the request)", async () => {
    for (const { stub, provider, q } of cases()) {
      stub.behave({ kind: "status", status: 503 });
      try {
        const err = await failure(provider, q);
        expect(err.status).toBe(503);
        expect(err.message.startsWith(`${provider.name} upstream error (503)`)).toBe(true);
      } finally {
        stub.behave({ kind: "ok" });
      }
    }
    openalex.behave({ kind: "status", status: 500 });
    try {
      const err = await failure(cases()[2].provider, query({ domainType: "research_paper" }));
      expect(err.message).toContain("api_key=[redacted]");
    } finally {
      openalex.behave({ kind: "ok" });
    }
  });

  it("OpenAlex 403: rate limit or key", async () => {
    openalex.behave({ kind: "status", status: 403 });
    try {
      const err = await failure(cases()[2].provider, query({ domainType: "research_paper" }));
      expect(err.message).toMatch(/^openalex refused the request \(403\): rate limit exceeded or API key not accepted/);
    } finally {
      openalex.behave({ kind: "ok" });
    }
  });

  it("an answer that never ends is refused past 8 MiB as it streams, not held whole", async () => {
    for (const { stub, q } of cases()) {
      const provider =
        stub === searxng
          ? createSearxngProvider({ baseUrl: searxng.url, now, timeoutMs: 20_000 })
          : stub === brave
            ? createBraveProvider({ apiKey: KEY, baseUrl: brave.url, now, timeoutMs: 20_000 })
            : createOpenAlexProvider({ baseUrl: openalex.url, apiKey: OA_KEY, timeoutMs: 20_000 });
      stub.behave({ kind: "endless" });
      try {
        expect((await failure(provider, q)).message).toBe(`${provider.name} answered more than ${MAX_UPSTREAM_BODY_BYTES} bytes`);
      } finally {
        stub.behave({ kind: "ok" });
      }
    }
  });

  it("invalid JSON and JSON of the wrong shape", async () => {
    for (const { stub, provider, q } of cases()) {
      stub.behave({ kind: "invalid-json" });
      try {
        expect((await failure(provider, q)).message).toMatch(new RegExp(`^${provider.name} answered invalid JSON`));
        // Brave's web answer keeps its results under `web`
        stub.behave({
          kind: "body",
          body: provider.name === "brave" ? { type: "search", web: { results: "nope" } } : { results: "nope" },
        });
        expect((await failure(provider, q)).message).toBe(`${provider.name} answered JSON without a results array`);
      } finally {
        stub.behave({ kind: "ok" });
      }
    }
  });

  it("an unreachable upstream", async () => {
    const gone = await startSearxng();
    await gone.close();
    const err = await failure(createSearxngProvider({ baseUrl: gone.url }), query());
    expect(err.message).toMatch(/^searxng unreachable: /);
    expect(err.status).toBeUndefined();
  });
});

describe("timeouts and aborts", () => {
  it("a slow upstream times out after timeoutMs", async () => {
    for (const { stub, provider, q } of cases()) {
      stub.behave({ kind: "slow", delayMs: 2_000 });
      try {
        const started = Date.now();
        const err = await failure(provider, q);
        expect(err.message).toBe(`${provider.name} timed out after 150 ms`);
        expect(Date.now() - started).toBeLessThan(1_500);
      } finally {
        stub.behave({ kind: "ok" });
      }
    }
  });

  it("a slow upstream within the budget still answers", async () => {
    searxng.behave({ kind: "slow", delayMs: 100 });
    try {
      const { hits } = await createSearxngProvider({ baseUrl: searxng.url, now, timeoutMs: 2_000 }).search(
        query(),
        new AbortController().signal,
      );
      expect(hits.length).toBeGreaterThan(0);
    } finally {
      searxng.behave({ kind: "ok" });
    }
  });

  it("the caller's abort cancels the request; an aborted signal sends none", async () => {
    brave.behave({ kind: "slow", delayMs: 2_000 });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const provider = createBraveProvider({ apiKey: KEY, baseUrl: brave.url, timeoutMs: 5_000 });
      const started = Date.now();
      const err = await failure(provider, query(), controller.signal);
      expect(err.message).toBe("brave request aborted by the caller");
      expect(Date.now() - started).toBeLessThan(1_500);
      const before = brave.requests.length;
      await failure(provider, query(), AbortSignal.abort());
      expect(brave.requests.length).toBe(before);
    } finally {
      brave.behave({ kind: "ok" });
    }
  });
});
