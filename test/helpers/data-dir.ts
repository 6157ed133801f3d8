import { cpSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { tempDir } from "./process.ts";

/**
 * An `OSPREY_DATA_DIR` whose PGlite database already has the current schema: a copy of the data
 * directory global-setup migrated once (about 40 MB, copied in well under a second). A CLI command
 * or server started on it skips PGlite's initdb and the migrations, which cost several seconds
 * each on this machine. Tests of the first start on an empty directory (initdb, migrations, their
 * progress lines) keep using a bare `tempDir()`.
 */
export function migratedDataDir(prefix = "osprey-test-"): { dir: string; cleanup(): void } {
  const t = tempDir(prefix);
  copyMigratedPglite(t.dir);
  return t;
}

/** Puts the migrated PGlite database into an existing data dir (`<dataDir>/pglite`, where the config looks). */
export function copyMigratedPglite(dataDir: string): void {
  cpSync(inject("pgliteDataDir"), path.join(dataDir, "pglite"), { recursive: true });
}
