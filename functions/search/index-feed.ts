/**
 * Feeds the local index from the fetch pipeline: every successful fetch offers the page it
 * extracted, and the feed upserts it after the response has gone out. Fire-and-forget with a
 * bounded queue (de-duplicated by owner and URL, oldest dropped when full), a few upserts in flight
 * at a time, batched; failures are logged, never surfaced to the fetch caller.
 *
 * Who may find a page is decided here, from where it came: an operator's crawl is global; a page an
 * account fetched is that account's alone, unless the operator shares public pages and this one is
 * public by every sign (page-visibility.ts).
 */

import type { PageMetadata, PageTyping } from "../extract/types.ts";
import type { Logger } from "../lib/logger.ts";
import type { IndexDocument, IndexWriter, UpsertResult } from "./local/document.ts";
import { cutText, MAX_INDEXED_CHARS, MAX_TITLE_CHARS } from "./local/prepare.ts";

export interface IndexFeedStats {
  offered: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Documents whose upsert threw. */
  failed: number;
  /** Documents dropped because the queue was full. */
  dropped: number;
}

/** Where an offered page came from. */
export type IndexSource =
  /** `osprey index add`: the operator's own crawl, visible to every account. */
  | { kind: "operator" }
  /** The fetch API: `publicPage` when page-visibility.ts found it public by every sign. */
  | { kind: "fetch"; accountId: string; publicPage: boolean };

export const OPERATOR_SOURCE: IndexSource = { kind: "operator" };

export interface IndexFeed {
  /**
   * Queues a document and returns at once. The promise resolves once that document is written,
   * dropped or failed (it never rejects): a server ignores it, so the work runs after the response;
   * on a function platform that freezes after the response (Lambda) the caller awaits it.
   */
  offer(doc: IndexDocument, from: IndexSource): Promise<void>;
  /** Resolves once nothing is queued or being written (tests, the CLI, shutdown). */
  whenIdle(): Promise<void>;
  /**
   * Resolves once every page offered so far from `accountId`'s fetches is written, dropped or
   * failed: a search by that account waits for them (search.service.ts), so it finds what it has
   * just fetched. At once when none is pending.
   */
  writtenFor(accountId: string): Promise<void>;
  stats(): IndexFeedStats;
}

export interface IndexFeedOptions {
  logger: Logger;
  /** Upserts in flight at once (default 1: the index serialises its writers anyway). */
  concurrency?: number;
  /** Documents per upsert call (default 16). */
  batchSize?: number;
  /** Queued documents kept at most (default 1000); Infinity for a crawl that must keep them all. */
  maxQueue?: number;
  /**
   * Share fetched pages that are public by every sign with every account
   * (OSPREY_SEARCH_SHARE_PUBLIC_PAGES; default false: every fetched page stays private).
   */
  sharePublicPages?: boolean;
}

/** The owner a page from `from` is indexed under (undefined: global). */
export function ownerFor(from: IndexSource, sharePublicPages: boolean): string | undefined {
  if (from.kind === "operator") return undefined;
  if (!from.accountId) throw new Error("a fetched page needs the fetching account");
  return sharePublicPages && from.publicPage ? undefined : from.accountId;
}

export function createIndexFeed(writer: IndexWriter, opts: IndexFeedOptions): IndexFeed {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const batchSize = Math.max(1, opts.batchSize ?? 16);
  const maxQueue = opts.maxQueue ?? 1000;
  const share = opts.sharePublicPages === true;
  // Insertion-ordered: an (owner, URL) offered again while queued replaces its older version.
  const queue = new Map<string, { doc: IndexDocument; settled: Array<() => void> }>();
  const stats: IndexFeedStats = { offered: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, failed: 0, dropped: 0 };
  let inFlight = 0;
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];
  /** The pages each account's fetches offered that are not written yet. */
  const pendingByAccount = new Map<string, Set<Promise<void>>>();

  const settleIdle = () => {
    if (inFlight > 0 || queue.size > 0 || scheduled) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  const count = (batch: IndexDocument[], r: UpsertResult) => {
    stats.inserted += r.inserted;
    stats.updated += r.updated;
    stats.unchanged += r.unchanged;
    stats.rejected += r.rejected.length;
    for (const x of r.rejected) opts.logger.debug("index refused a fetched page", { url: x.url, reason: x.reason });
    if (batch.length > r.inserted + r.updated + r.unchanged + r.rejected.length) {
      opts.logger.debug("index upsert accounted for fewer documents than given", { given: batch.length });
    }
  };

  const pump = () => {
    scheduled = false;
    while (inFlight < concurrency && queue.size > 0) {
      const batch: IndexDocument[] = [];
      const settled: Array<() => void> = [];
      for (const [key, entry] of queue) {
        batch.push(entry.doc);
        settled.push(...entry.settled);
        queue.delete(key);
        if (batch.length >= batchSize) break;
      }
      inFlight++;
      writer
        .upsert(batch)
        .then(
          (r) => count(batch, r),
          (err: unknown) => {
            stats.failed += batch.length;
            opts.logger.error("local index upsert failed", { error: err, urls: batch.length, first: batch[0]?.url });
          },
        )
        .finally(() => {
          inFlight--;
          for (const done of settled) done();
          pump();
          settleIdle();
        });
    }
  };

  return {
    offer(offered, from) {
      stats.offered++;
      const { ownerAccountId: _ignored, ...doc } = offered;
      const owner = ownerFor(from, share);
      const owned: IndexDocument = owner === undefined ? doc : { ...doc, ownerAccountId: owner };
      const key = `${owner ?? ""} ${owned.url}`;
      // An older version still queued is replaced; whoever waits on it waits for this one.
      const settled = queue.get(key)?.settled ?? [];
      const written = new Promise<void>((resolve) => settled.push(resolve));
      queue.delete(key);
      queue.set(key, { doc: owned, settled });
      while (queue.size > maxQueue) {
        const [oldestKey, oldest] = queue.entries().next().value as [string, { doc: IndexDocument; settled: Array<() => void> }];
        queue.delete(oldestKey);
        stats.dropped++;
        for (const done of oldest.settled) done();
        opts.logger.warn("local index feed is full; dropped a page", { url: oldest.doc.url });
      }
      if (from.kind === "fetch") {
        const pending = pendingByAccount.get(from.accountId) ?? new Set<Promise<void>>();
        pendingByAccount.set(from.accountId, pending);
        pending.add(written);
        void written.then(() => {
          pending.delete(written);
          if (pending.size === 0 && pendingByAccount.get(from.accountId) === pending) pendingByAccount.delete(from.accountId);
        });
      }
      // After the current turn: the fetch response is sent before any index work starts.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          pump();
          settleIdle();
        });
      }
      return written;
    },
    whenIdle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
    writtenFor(accountId) {
      const pending = pendingByAccount.get(accountId);
      return pending ? Promise.all([...pending]).then(() => undefined) : Promise.resolve();
    },
    stats: () => ({ ...stats }),
  };
}

const day = (iso: string | null | undefined): string | undefined =>
  iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : undefined;

/**
 * The index document for a successful extraction: the final URL, plain text, metadata and the
 * page's type. Null when there is no text to index.
 */
export function toIndexDocument(input: {
  finalUrl: string;
  metadata: Pick<PageMetadata, "title" | "language" | "publishedDate">;
  text: string;
  typing?: PageTyping;
}): IndexDocument | null {
  // Cut to what the index keeps (prepare.ts) now: the feed's queue may hold up to 1,000 of these.
  const text = cutText(input.text.trim(), MAX_INDEXED_CHARS);
  if (text === "") return null;
  const t = input.typing ?? { type: "web" as const };
  const doc: IndexDocument = {
    url: input.finalUrl,
    title: cutText(input.metadata.title ?? input.finalUrl, MAX_TITLE_CHARS),
    text,
    type: t.type,
  };
  if (t.siteName) doc.siteName = t.siteName;
  if (input.metadata.language) doc.language = input.metadata.language;
  const published = t.publishedDate ?? day(input.metadata.publishedDate);
  if (published) doc.publishedDate = published;
  if (t.publisher) doc.publisher = t.publisher;
  if (t.authors?.length) doc.authors = t.authors;
  if (t.venue) doc.venue = t.venue;
  if (t.year !== undefined) doc.year = t.year;
  if (t.pdfUrl) doc.pdfUrl = t.pdfUrl;
  return doc;
}
