import type { Db } from "../db/db.ts";
import { type FinishRun, runFinisher } from "./finish.ts";
import { type RunRepo, runRepo } from "./run.repo.ts";
import type { RunNotifier } from "./run-notifier.ts";

/**
 * Where a process's runs live and how they end: the repository, the one finisher, the notifier
 * that wakes their readers and the base URL they are reached at. Built once per process by its
 * composition root and handed to everything that touches runs there (the service, the worker, the
 * dead-letter handler), so they share one notifier (a finish wakes the blocking /run at once) and
 * cannot end a run two ways.
 */
export interface RunLifecycle {
  readonly repo: RunRepo;
  readonly finish: FinishRun;
  readonly notifier: RunNotifier;
  /** Base URL of this service as callers reach it; read when needed (known only once listening). */
  readonly publicUrl: () => string;
}

export function runLifecycle(deps: { db: Db; notifier: RunNotifier; publicUrl: () => string }): RunLifecycle {
  const repo = runRepo(deps.db);
  return {
    repo,
    finish: runFinisher({ repo, notifier: deps.notifier, publicUrl: deps.publicUrl }),
    notifier: deps.notifier,
    publicUrl: deps.publicUrl,
  };
}
