import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BundleReport, bundleEntry, bundleSurface, SURFACES } from "../../functions/build/build-edge.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { createServices } from "../../functions/services/index.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";

/**
 * The edge bundles as `npm run build` makes them: nothing of the serverful side inside, within the
 * size target, and each one, imported in a fresh Node process with only DATABASE_URL set (a
 * database nobody listens on), answers /healthz, /openapi.json and a missing key's 401.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
const reports = new Map<string, BundleReport>();

describe("edge bundles", () => {
  beforeAll(async () => {
    for (const surface of SURFACES) reports.set(surface, await bundleSurface(surface));
  }, 120_000);

  it("carry no PGlite, pg-native, puppeteer or containers/ code, pg only in a chunk loaded with import(), and stay within 1.5 MB (agent, fetch, search)", () => {
    for (const surface of SURFACES) {
      const r = reports.get(surface);
      expect(r?.forbidden, surface).toEqual([]);
      if (surface !== "browser") expect(r?.bytes ?? Infinity, surface).toBeLessThanOrEqual(1.5 * 1024 * 1024);
    }
  });

  it.each(SURFACES)("%s: a fresh process with only DATABASE_URL answers what needs no database", async (surface) => {
    const { stdout } = await run(
      process.execPath,
      [
        "--experimental-strip-types",
        "--disable-warning=ExperimentalWarning",
        path.join(ROOT, "test/bench/edge-cold.ts"),
        reports.get(surface)?.file ?? "",
      ],
      { env: { PATH: process.env.PATH ?? "", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, encoding: "utf8" },
    );
    const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, number>;
    expect(out).toMatchObject({ status: 200, openapi: 200, anonymous: 401 });
  });

  it.skipIf(!TEST_DATABASE_URL)(
    "agent: the bundle over pg (OSPREY_DB_DRIVER=pg) answers an authenticated request from a real Postgres",
    async () => {
      const database = await createPostgresDatabase({ fromTemplate: true });
      try {
        const setup = await openDatabase({ driver: "pg", url: database.url });
        const key = await ensureFirstAccount(createServices({ db: setup.db, clock: systemClock, ids: defaultIds }))
          .then((c) => c?.key ?? "")
          .finally(() => setup.close());
        const { stdout } = await run(
          process.execPath,
          [
            "--experimental-strip-types",
            "--disable-warning=ExperimentalWarning",
            path.join(ROOT, "test/bench/edge-cold.ts"),
            reports.get("agent")?.file ?? "",
            key,
          ],
          { env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, OSPREY_DB_DRIVER: "pg" }, encoding: "utf8" },
        );
        const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { authed: { status: number } | null };
        expect(out.authed?.status).toBe(200);
      } finally {
        await database.drop();
      }
    },
  );

  describe("the check", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), "osprey-edge-check-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("names a bundle that imports pg statically (every cold start would load it)", async () => {
      const entry = path.join(ROOT, "functions/build/.check-entry.tmp.ts");
      writeFileSync(entry, 'import pg from "pg";\nexport const handler = () => pg;\n');
      try {
        const r = await bundleEntry("bad", entry, dir);
        expect(r.forbidden.some((f) => f.includes("node_modules/pg/") && f.includes("every cold start"))).toBe(true);
      } finally {
        rmSync(entry, { force: true });
      }
    });

    it("accepts pg loaded with import(), in its own chunk", async () => {
      const entry = path.join(ROOT, "functions/build/.check-entry-lazy.tmp.ts");
      writeFileSync(entry, 'export const handler = async () => (await import("pg")).default;\n');
      try {
        const r = await bundleEntry("lazy", entry, dir);
        expect(r.forbidden).toEqual([]);
        expect(r.lazyBytes).toBeGreaterThan(50_000);
      } finally {
        rmSync(entry, { force: true });
      }
    });

    it("names a bundle that imports PGlite statically", async () => {
      const entry = path.join(ROOT, "functions/build/.check-entry-pglite.tmp.ts");
      writeFileSync(entry, 'import { PGlite } from "@electric-sql/pglite";\nexport const handler = () => PGlite;\n');
      try {
        const r = await bundleEntry("pglite", entry, dir);
        expect(r.forbidden.some((f) => f.includes("@electric-sql/pglite"))).toBe(true);
      } finally {
        rmSync(entry, { force: true });
      }
    });
  });
});
