import { waitAtMost } from "../lib/wait.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import type { FetchRequest } from "./fetch-request.schema.ts";
import { fetchUrl, MESSAGES, type UrlOutcome } from "./fetch-url.ts";

/** Spec 8: backend ceiling per URL, and the whole batch. */
export const BACKEND_TIMEOUT_MS = 110_000;
export const BATCH_CEILING_MS = 120_000;

export interface BatchContext {
  auth: AuthContext;
  requestId: string;
  requestOrigin: string;
}

export interface TimedOutcome {
  outcome: UrlOutcome;
  latencyMs: number;
}

/**
 * A fetch request: every URL in parallel under its own deadline (per_url_timeout_ms, else 110 s,
 * never past the 120 s batch ceiling). Each URL ends as a result or a per-URL error; one usage
 * row per URL is written at the end.
 */
export function fetchService(deps: FetchDeps, opts: { batchCeilingMs?: number } = {}) {
  const ceiling = opts.batchCeilingMs ?? BATCH_CEILING_MS;

  async function runOne(url: string, req: FetchRequest, batchSignal: AbortSignal, batchEndsAt: number): Promise<TimedOutcome> {
    const started = performance.now();
    const perUrlMs = Math.min(req.per_url_timeout_ms ?? BACKEND_TIMEOUT_MS, BACKEND_TIMEOUT_MS);
    const deadlineAt = Math.min(Date.now() + perUrlMs, batchEndsAt);
    const perUrl = AbortSignal.timeout(perUrlMs);
    const signal = AbortSignal.any([perUrl, batchSignal]);
    const timedOut = new Promise<UrlOutcome>((resolve) => {
      const done = () => resolve({ ok: false, url, finalUrl: url, error: "timeout", message: MESSAGES.timeout });
      if (signal.aborted) done();
      else signal.addEventListener("abort", done, { once: true });
    });
    let outcome: UrlOutcome;
    try {
      // Work that cannot be interrupted (extraction) still loses the race against the deadline.
      outcome = await Promise.race([fetchUrl(deps, url, req, signal, deadlineAt), timedOut]);
    } catch (err) {
      if (signal.aborted) outcome = { ok: false, url, finalUrl: url, error: "timeout", message: MESSAGES.timeout };
      else {
        deps.logger.error("fetch of one URL failed unexpectedly", { url, error: err });
        outcome = { ok: false, url, finalUrl: url, error: "target_unreachable" };
      }
    }
    return { outcome, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  // Successful whole pages go to the local index once the response is computed (the feed
  // starts its work on a later turn and never fails the request), private to the fetching account
  // unless the feed may share them (index-feed.ts). Resolves when they are written (or given up).
  const offerToIndex = (outcomes: TimedOutcome[], accountId: string): Promise<unknown> => {
    if (!deps.index) return Promise.resolve();
    const written: Promise<void>[] = [];
    for (const { outcome } of outcomes) {
      if (outcome.ok && outcome.indexDoc) {
        written.push(deps.index.offer(outcome.indexDoc, { kind: "fetch", accountId, publicPage: outcome.indexPublic === true }));
      }
    }
    return Promise.all(written);
  };
  /** On the edge the response waits for indexing, but never longer than this. */
  const INDEX_WAIT_MS = 5000;

  return {
    async fetch(req: FetchRequest, ctx: BatchContext): Promise<TimedOutcome[]> {
      const batch = AbortSignal.timeout(ceiling);
      const batchEndsAt = Date.now() + ceiling;
      const outcomes = await Promise.all(req.urls.map((url) => runOne(url, req, batch, batchEndsAt)));
      const now = deps.clock.now();
      await deps.usage.insertMany(
        outcomes.map(({ outcome: o, latencyMs }) => ({
          id: deps.ids.fetchUsage(),
          accountId: ctx.auth.account.id,
          keyId: ctx.auth.keyId,
          requestId: ctx.requestId,
          url: o.url,
          finalUrl: o.finalUrl,
          title: o.ok ? o.title : null,
          description: o.ok ? o.description : null,
          language: o.ok ? o.language : null,
          author: o.ok ? o.author : null,
          publishedDate: o.ok ? o.publishedDate : null,
          format: req.format,
          status: o.ok ? ("completed" as const) : ("failed" as const),
          requestOrigin: ctx.requestOrigin,
          textLength: o.ok ? o.textLength : null,
          linksCount: o.ok ? (o.links?.length ?? 0) : 0,
          imageLinksCount: o.ok ? (o.imageLinks?.length ?? 0) : 0,
          latencyMs,
          notModified: o.ok ? o.notModified === true : false,
          etag: o.ok ? (o.etag ?? null) : null,
          lastModified: o.ok ? (o.lastModified ?? null) : null,
          error: o.ok ? null : o.error,
          createdAt: now,
        })),
      );
      const indexed = offerToIndex(outcomes, ctx.auth.account.id);
      if (deps.awaitIndex && !(await waitAtMost(indexed, INDEX_WAIT_MS))) {
        deps.logger.warn("indexing fetched pages took too long; answering without waiting", { wait_ms: INDEX_WAIT_MS });
      }
      return outcomes;
    },
    /**
     * One URL on its own (the `osprey index add` crawl): the same pipeline and deadlines, no usage
     * row, nothing offered to the index (the caller upserts `outcome.indexDoc` itself).
     */
    fetchOne(url: string, req: FetchRequest): Promise<TimedOutcome> {
      return runOne(url, req, AbortSignal.timeout(ceiling), Date.now() + ceiling);
    },
  };
}

export type FetchService = ReturnType<typeof fetchService>;
