import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * PGlite is an embedded database: two processes opening the same directory would corrupt it.
 * Every Osprey process that opens the data directory's database takes this lock first (an
 * exclusive-create file holding the owner's pid); a lock whose process is gone is taken over.
 */
export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  readonly dataDir: string;
  readonly owner: { pid: number; command: string };
  constructor(dataDir: string, owner: { pid: number; command: string }, why?: string) {
    super(
      `the data directory ${dataDir} is in use by another Osprey process (pid ${owner.pid}, "${owner.command}")${why ? ` and ${why}` : ""}. ` +
        "Stop it first, or point this command at the same database the server uses through DATABASE_URL (Postgres allows both at once).",
    );
    this.dataDir = dataDir;
    this.owner = owner;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string, command: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "osprey.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, command, started_at: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let owner: { pid?: unknown; command?: unknown } = {};
      try {
        owner = JSON.parse(readFileSync(file, "utf8"));
      } catch {
        // Unreadable or half-written: treated as stale below.
      }
      const pid = typeof owner.pid === "number" ? owner.pid : 0;
      if (pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLockedError(dataDir, { pid, command: String(owner.command ?? "osprey") });
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock on ${dataDir}`);
}
