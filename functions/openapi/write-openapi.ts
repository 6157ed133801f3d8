/**
 * `npm run openapi` writes the committed copies of the OpenAPI documents under schema/openapi/;
 * `npm run openapi -- --check` (CI) fails when they differ from what the code generates. The
 * documents are taken from the app exactly as it serves them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createLocalApp } from "../app.ts";
import type { Db } from "../db/db.ts";
import { inlineExtractor } from "../extract/pool.ts";
import { buildFetch } from "../fetch/build.ts";
import { unavailableRenderer } from "../fetch/renderer.ts";
import { defaultIds } from "../lib/ids.ts";
import { silentLogger } from "../lib/logger.ts";
import { profileService } from "../profiles/profile.service.ts";
import { profileStore } from "../profiles/profile.store.ts";
import { unavailableQueue } from "../queue/queue.ts";
import { buildRuns } from "../runs/build.ts";
import { runLifecycle } from "../runs/run-lifecycle.ts";
import { createRunNotifier } from "../runs/run-notifier.ts";
import { searchService } from "../search/search.service.ts";
import { createServices } from "../services/index.ts";
import { sessionService } from "../sessions/session.service.ts";
import { memoryBlobStore } from "../storage/blob-store.ts";
import { vaultService } from "../vault/vault.service.ts";

/** Generating documents runs no handler; a database access here would be a bug. */
const noDatabase = new Proxy({} as Db, {
  get() {
    throw new Error("the OpenAPI generator must not touch the database");
  },
});

export const DOCUMENTS: Record<string, string> = {
  "osprey.json": "/openapi.json",
  "fetch.json": "/fetch/openapi.json",
  "search.json": "/search/openapi.json",
  "browser.json": "/browser/openapi.json",
};

export async function generateDocuments(): Promise<Record<string, string>> {
  const clock = { now: () => new Date(0) };
  const services = createServices({ db: noDatabase, clock, ids: defaultIds });
  const fetch = buildFetch({
    config: { allowPrivateHosts: [], fetchNeverExpireHosts: [] },
    db: noDatabase,
    clock,
    ids: defaultIds,
    logger: silentLogger,
    renderer: unavailableRenderer("documentation only"),
    extractor: inlineExtractor,
    blobs: memoryBlobStore(),
  });
  const runs = buildRuns({
    lifecycle: runLifecycle({ db: noDatabase, notifier: createRunNotifier(), publicUrl: () => "http://127.0.0.1:8787" }),
    queue: unavailableQueue("documentation only"),
    blobs: memoryBlobStore(),
    logger: silentLogger,
    model: null,
  });
  const search = searchService({ db: noDatabase, clock, logger: silentLogger, rateLimits: services.rateLimits, providers: [] });
  const unused = () => {
    throw new Error("the OpenAPI generator must not start browsers");
  };
  const sessions = sessionService({
    db: noDatabase,
    clock,
    logger: silentLogger,
    rateLimits: services.rateLimits,
    host: {
      hostId: "docs",
      hostUrl: null,
      start: unused,
      end: unused,
      liveFrame: unused,
      liveInput: unused,
      saveProfile: unused,
    },
    browser: { countryProxies: {} },
    allowPrivateHosts: [],
    publicBase: () => "http://127.0.0.1:8787/browser",
  });
  const keyring = { currentKeyId: "docs", seal: unused, open: unused, keyIdOf: unused };
  const vault = vaultService({ db: noDatabase, clock, logger: silentLogger, keyring, providers: {} });
  const profiles = profileService({
    db: noDatabase,
    clock,
    store: profileStore({ db: noDatabase, keyring, logger: silentLogger }),
  });
  const app = createLocalApp({ services, ids: defaultIds, logger: silentLogger, fetch, runs, search, sessions, vault, profiles });
  const out: Record<string, string> = {};
  for (const [file, path] of Object.entries(DOCUMENTS)) {
    const res = await app.request(path);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    out[file] = `${JSON.stringify(await res.json(), null, 2)}\n`;
  }
  return out;
}

async function main(check: boolean): Promise<number> {
  const dir = fileURLToPath(new URL("../../schema/openapi/", import.meta.url));
  const docs = await generateDocuments();
  const stale: string[] = [];
  for (const [file, text] of Object.entries(docs)) {
    const target = `${dir}${file}`;
    let current = "";
    try {
      current = readFileSync(target, "utf8");
    } catch {
      // missing counts as stale
    }
    if (current === text) continue;
    stale.push(`schema/openapi/${file}`);
    if (!check) writeFileSync(target, text);
  }
  if (check && stale.length > 0) {
    process.stderr.write(`OpenAPI documents are stale: ${stale.join(", ")}. Run \`npm run openapi\` and commit the result.\n`);
    return 1;
  }
  process.stdout.write(
    check
      ? "OpenAPI documents are up to date.\n"
      : stale.length
        ? `Wrote ${stale.join(", ")}.\n`
        : "OpenAPI documents already up to date.\n",
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.includes("--check"));
}
