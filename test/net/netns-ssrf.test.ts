import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CanaryHit } from "../helpers/netns/canary.ts";
import { describeRun, netnsSupport, runInNetns } from "../helpers/netns/netns.ts";
import { chromeAvailable } from "../helpers/test-session.ts";

/**
 * Issue 15's SSRF matrix (the scenario explains each path): fetch, fetch rendering, the run
 * browser and webhooks, each tried against metadata, private and loopback addresses, names that
 * resolve inward, odd spellings, redirects and DNS rebinding, inside a network namespace whose
 * canaries count every connection. Nothing may reach a canary and no answer may carry its secret.
 */

const support = netnsSupport();
const hasChrome = chromeAvailable("SSRF matrix");
const scenario = path.resolve(import.meta.dirname, "scenarios", "netns-ssrf.scenario.ts");

interface SsrfReport {
  paths: Record<string, { attempts: number; errors: string[] }>;
  attempts: number;
  canaryConnections: number;
  hits: CanaryHit[];
  secretSeen: string[];
  serverAlive: number | string;
}

describe.skipIf(!support.ok || !hasChrome)(
  `SSRF matrix in a network namespace${support.ok ? "" : ` (skipped: ${support.reason})`}`,
  () => {
    it("no path reaches a metadata, private or loopback address, rebinding included", { timeout: 240_000 }, async () => {
      const run = await runInNetns<SsrfReport>(scenario, { timeoutMs: 220_000 });
      const r = run.report;
      expect(r, describeRun(run)).not.toBeNull();
      if (!r) return;
      process.stdout.write(
        `SSRF matrix: ${r.attempts} attempts (${Object.entries(r.paths)
          .map(([p, v]) => `${p} ${v.attempts}`)
          .join(", ")}), canary connections ${r.canaryConnections}\n`,
      );
      expect(r.hits, JSON.stringify(r.hits, null, 1)).toEqual([]);
      expect(r.canaryConnections).toBe(0);
      expect(r.secretSeen).toEqual([]);
      for (const p of ["fetch", "render", "run browser", "webhook"]) {
        expect(r.paths[p]?.attempts ?? 0, p).toBeGreaterThan(20);
        expect(r.paths[p]?.errors ?? [], p).toEqual([]);
      }
      expect(r.serverAlive).toBe(200);
    });
  },
);
