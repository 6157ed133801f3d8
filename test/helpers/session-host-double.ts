import type { AllowedHost } from "../../functions/config/config.ts";
import type { BrowserConfig } from "../../functions/config/config-browser.ts";
import type { Db } from "../../functions/db/db.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import type { LiveInputEvent } from "../../functions/sessions/live-input.schemas.ts";
import { sessionRepo } from "../../functions/sessions/session.repo.ts";
import { type SessionServiceDeps, sessionService } from "../../functions/sessions/session.service.ts";
import type { LiveInputResult, SessionHost, SessionLaunch } from "../../functions/sessions/session-host.ts";
import type { TestContextOptions } from "./app.ts";

/** The bytes the double reports at the end of every session it holds. */
export const DOUBLE_END_BYTES = { rx: 4096, tx: 512 };

/** What liveFrame() answers for a session the double holds: a JPEG's start and end markers, nothing between. */
export const DOUBLE_LIVE_FRAME = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);

/**
 * A double of the SessionHost port (functions/sessions/session-host.ts), not of Chromium. The
 * session API only ever sees this interface, so recording what start() got, and writing a
 * session's end through the real repository (as the real host does once its browser has closed),
 * is all that HTTP tests of the API (test/sessions/session-api.test.ts) and the fuzzer
 * (fuzz-run.ts) need: every case is fast and exact, and no browser is launched. The real host,
 * with real browsers, the CDP relay and the egress proxy, is covered by
 * test/sessions/session-cdp.test.ts and test/sessions/session-host.test.ts.
 */
export class SessionHostDouble implements SessionHost {
  readonly hostId = "port-double";
  /** One host: nothing to forward to. */
  readonly hostUrl = null;
  readonly starts: SessionLaunch[] = [];
  readonly ends: { id: string; reason: string }[] = [];
  /** Sessions whose profile saveProfile wrote (a setup session's save). */
  readonly saves: string[] = [];
  /** Every live view input the double took, in order, as the host got it (validated, defaults filled). */
  readonly inputs: { id: string; event: LiveInputEvent }[] = [];
  /** What liveInput answers for a session it holds (the real host's other outcomes, for the API's mapping). */
  inputResult: LiveInputResult = "done";
  private readonly held = new Set<string>();
  private nextFailure: Error | null = null;

  private readonly db: Db;
  /** What a session's end time is read from. */
  readonly clock: Clock;

  /** `clock` must be the one the session service reads (createTestContext's `clock` option). */
  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The next start() throws this (after recording the launch), once. */
  failNextStart(err: Error): void {
    this.nextFailure = err;
  }

  /** Drops a session as a host that restarted would: end() then no longer holds it. */
  forget(id: string): void {
    this.held.delete(id);
  }

  /** The ids of the sessions it holds now (started, not ended). */
  holding(): string[] {
    return [...this.held];
  }

  startsOf(accountId: string): SessionLaunch[] {
    return this.starts.filter((s) => s.accountId === accountId);
  }

  async start(launch: SessionLaunch): Promise<void> {
    this.starts.push(launch);
    const failure = this.nextFailure;
    this.nextFailure = null;
    if (failure) throw failure;
    this.held.add(launch.id);
  }

  async end(id: string, reason: string): Promise<boolean> {
    if (!this.held.delete(id)) return false;
    this.ends.push({ id, reason });
    await sessionRepo(this.db).end(id, {
      reason,
      at: this.clock.now(),
      rxBytes: DOUBLE_END_BYTES.rx,
      txBytes: DOUBLE_END_BYTES.tx,
    });
    return true;
  }

  async saveProfile(id: string): Promise<"saved" | "no_profile" | "not_here"> {
    if (!this.held.has(id)) return "not_here";
    if (!this.starts.find((s) => s.id === id)?.profile) return "no_profile";
    this.saves.push(id);
    return "saved";
  }

  async liveFrame(session: { id: string }): Promise<Buffer | null> {
    return this.held.has(session.id) ? DOUBLE_LIVE_FRAME : null;
  }

  async liveInput(session: { id: string }, event: LiveInputEvent): Promise<LiveInputResult> {
    if (!this.held.has(session.id)) return "gone";
    if (this.inputResult === "done") this.inputs.push({ id: session.id, event });
    return this.inputResult;
  }
}

export interface DoubleSessionsOptions {
  /** The operator's upstream per country (OSPREY_PROXY_COUNTRIES); none by default. */
  countryProxies?: BrowserConfig["countryProxies"];
  /** Private addresses a custom proxy may name; none by default. */
  allowPrivateHosts?: AllowedHost[];
  /** The browser surface's public base, in cdp_url and live_view_url. */
  publicBase?: string;
  /** Browser Context Profiles sessions may start from; none by default. */
  profiles?: SessionServiceDeps["profiles"];
}

/**
 * createTestContext's `sessions` option: the real session service (validation, entitlements,
 * limits, the repository) over `host`. Pass the double's clock as the context's `clock` too.
 */
export function sessionsOver(
  host: SessionHostDouble,
  opts: DoubleSessionsOptions = {},
): NonNullable<TestContextOptions["sessions"]> {
  const publicBase = opts.publicBase ?? "http://127.0.0.1:8787/browser";
  return ({ db, services, clock, logger }) => {
    // Ends the double writes and the service's own times must come from one clock the test moves.
    if (clock !== host.clock) throw new Error("sessionsOver: pass the double's clock as createTestContext's clock");
    return sessionService({
      db,
      clock,
      logger,
      rateLimits: services.rateLimits,
      host,
      browser: { countryProxies: opts.countryProxies ?? {} },
      allowPrivateHosts: opts.allowPrivateHosts ?? [],
      publicBase: () => publicBase,
      ...(opts.profiles ? { profiles: opts.profiles } : {}),
    });
  };
}
