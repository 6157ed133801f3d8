import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BundleReport, bundleEntry, bundleSurface, SURFACES } from "../../functions/build/build-edge.ts";

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

  it("carry no PGlite, pg, puppeteer or containers/ code, and stay within 1.5 MB (agent, fetch, search)", () => {
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

  describe("the check", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), "osprey-edge-check-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("names a bundle that imports pg statically", async () => {
      const entry = path.join(ROOT, "functions/build/.check-entry.tmp.ts");
      writeFileSync(entry, 'import pg from "pg";\nexport const handler = () => pg;\n');
      try {
        const r = await bundleEntry("bad", entry, dir);
        expect(r.forbidden.some((f) => f.includes("node_modules/pg/"))).toBe(true);
      } finally {
        rmSync(entry, { force: true });
      }
    });
  });
});
