import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { describeRun, netnsSupport, runInNetns } from "../helpers/netns/netns.ts";

/**
 * Issue 15, "one request crashes the server", end to end in a network namespace with no routes
 * (test/helpers/netns): a name whose only address has no route makes connect() fail at once
 * (ENETUNREACH). With the pinned lookup answering synchronously, that failure was emitted before
 * http/tls listened for it and killed the process: `osprey serve` at the first /fetch, and the
 * webhook dispatcher at the first attempt (and again at every retry after a restart). These
 * scenarios fail on the tree before the fix (18b2588): the server exits with code 1 on its first
 * request, the dispatcher's process at its first delivery.
 */

const support = netnsSupport();
const skipped = support.ok ? "" : ` (skipped: ${support.reason})`;
const scenario = (name: string) => path.resolve(import.meta.dirname, "scenarios", name);

type FetchResponse =
  | { urls: string[]; status: number; errors: { url: string; error: string }[]; results: number; secret: boolean }
  | { urls: string[]; failed: string; code: string | null };
interface FetchReport {
  key: boolean;
  steps: { step: string; responses: FetchResponse[]; account: number | string; alive: boolean }[];
  planned: number;
  aliveAtEnd: boolean;
  exit: { code: number | null; signal: string | null } | null;
  stopCode: number | null;
  guardWarnings: number;
  canaryTotal: number;
  queries: { name: string; type: string }[];
  stderrTail: string;
}

interface WebhookReport {
  schedule: number[];
  rounds: { claimed: number; delivered: number; retried: number; failed: number; lost: number }[];
  deliveries: {
    id: string;
    url: string;
    status: string;
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
  }[];
  attempts: { deliveryId: string; attempt: number; outcome: string; statusCode: number | null; error: string | null }[];
}

describe.skipIf(!support.ok)(`a fetch to an address with no route does not crash osprey serve${skipped}`, () => {
  it("every /fetch answers 200 with target_unreachable per URL, one at a time, ten at once and concurrently; the server keeps serving", async () => {
    const run = await runInNetns<FetchReport>(scenario("netns-crash-fetch.scenario.ts"), { timeoutMs: 60_000 });
    const context = describeRun(run);
    expect(run.report, context).not.toBeNull();
    const report = run.report as FetchReport;
    const story = `${context}\n--- server stderr\n${report.stderrTail}`;
    expect(report.key, story).toBe(true);
    // The server's death, if any, is the first thing to show.
    expect({ exit: report.exit, aliveAtEnd: report.aliveAtEnd }, story).toEqual({
      exit: { code: 0, signal: null },
      aliveAtEnd: true,
    });
    expect(report.steps, story).toHaveLength(report.planned);
    for (const step of report.steps) {
      expect({ step: step.step, alive: step.alive, account: step.account }, story).toEqual({
        step: step.step,
        alive: true,
        account: 200,
      });
      for (const response of step.responses) {
        // Spec 4.6 and 7.4: a per-URL network failure is data in a 200, one error per URL.
        expect(response, `${step.step}\n${story}`).toEqual({
          urls: response.urls,
          status: 200,
          errors: response.urls.map((url) => ({ url, error: "target_unreachable" })),
          results: 0,
          secret: false,
        });
      }
    }
    expect(report.steps.find((s) => s.step === "ten in one request")?.responses[0]?.urls).toHaveLength(10);
    expect(report.steps.find((s) => s.step === "five requests at once")?.responses).toHaveLength(5);
    // Both names were really resolved through the stub (the AAAA-only one by its AAAA record).
    expect(report.queries).toContainEqual({ name: "v6only.crash.example.com", type: "AAAA" });
    expect(report.queries).toContainEqual({ name: "noroute.crash.example.com", type: "A" });
    // The fix is at the source: no socket error escaped, so the process guard had nothing to catch.
    expect(report.guardWarnings, story).toBe(0);
    expect(report.canaryTotal).toBe(0);
    // Still able to shut down cleanly.
    expect(report.stopCode, story).toBe(0);
    // Longer than the scenario's own 60 s limit, so a slow run fails with its story, not a bare timeout.
  }, 90_000);
});

describe.skipIf(!support.ok)(`a webhook to an address with no route does not crash the dispatcher${skipped}`, () => {
  it("every attempt of the schedule is recorded as a network failure (retry, then failed); the process survives them all", async () => {
    const run = await runInNetns<WebhookReport>(scenario("netns-crash-webhook.scenario.ts"), {
      env: { PGLITE_SNAPSHOT: inject("pgliteSnapshot") },
      timeoutMs: 60_000,
    });
    const context = describeRun(run);
    expect({ code: run.code, report: run.report !== null }, context).toEqual({ code: 0, report: true });
    const report = run.report as WebhookReport;
    const attemptsEach = report.schedule.length + 1;
    expect(report.deliveries.length).toBeGreaterThan(0);
    for (const delivery of report.deliveries) {
      expect(delivery, context).toMatchObject({
        status: "failed",
        attempts: attemptsEach,
        lastStatus: null,
        lastError: expect.stringMatching(/^connect ENETUNREACH /),
      });
      const attempts = report.attempts.filter((a) => a.deliveryId === delivery.id);
      expect(
        attempts.map((a) => [a.attempt, a.outcome, a.statusCode]),
        context,
      ).toEqual(Array.from({ length: attemptsEach }, (_, i) => [i + 1, i < attemptsEach - 1 ? "retry" : "failed", null]));
      for (const a of attempts) expect(a.error).toMatch(/^connect ENETUNREACH /);
    }
    expect(report.rounds.every((r) => r.lost === 0 && r.delivered === 0)).toBe(true);
  }, 90_000);
});
