import { randomBytes } from "node:crypto";
import type { AllowedHost } from "../config/config.ts";
import type { BrowserConfig, ProxyCountry } from "../config/config-browser.ts";
import { proxyUrlProblem } from "../config/config-browser.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { newId, randomBase62 } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import { type Page, type PageRequest, toPage } from "../lib/pagination.ts";
import { tokenBuckets } from "../lib/token-bucket.ts";
import { checkUrl } from "../net/address-policy.ts";
import type { ProfileStore } from "../profiles/profile.types.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import type { RateLimitService } from "../services/rate-limit.service.ts";
import { LIVE_INPUT_LIMITS, type LiveInputEvent } from "./live-input.schemas.ts";
import { type BrowserSessionRow, type SessionUsageFilter, sessionRepo } from "./session.repo.ts";
import type { CreateSessionRequest } from "./session.schemas.ts";
import { SESSION_LIMITS } from "./session.schemas.ts";
import {
  type SessionUsageWire,
  type SessionWire,
  type StoredSessionOptions,
  sessionToWire,
  sessionUsageToWire,
} from "./session.wire.ts";
import { type SessionHost, SessionHostBusyError, type SessionUpstream } from "./session-host.ts";

export interface SessionServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  rateLimits: RateLimitService;
  host: SessionHost;
  browser: Pick<BrowserConfig, "countryProxies">;
  allowPrivateHosts: AllowedHost[];
  /** The browser surface's public base (http(s)://…/browser locally, the host root in the cloud); read when needed. */
  publicBase: () => string;
  /** Browser Context Profiles (profile_id); absent: no profile exists here (404). */
  profiles?: Pick<ProfileStore, "resolve">;
}

/** How create was called: by POST {browser_url}, or for a profile's setup session. */
export interface CreateSessionOptions {
  /** The setup session of this profile (persist false; saved by its save endpoint only). */
  setupOf?: string;
}

/** Retry-After for a full account or host: sessions end at their own pace, so this is a hint. */
const BUSY_RETRY_SECONDS = 10;

const invalid = (path: (string | number)[], message: string) =>
  new AppError("INVALID_INPUT", `Invalid input at ${path.join(".")}: ${message}`, {
    details: [{ code: "custom", path, message, location: "body" }],
  });

export function sessionService(deps: SessionServiceDeps) {
  const repo = sessionRepo(deps.db);
  const inputBuckets = tokenBuckets({ ratePerSecond: LIVE_INPUT_LIMITS.eventsPerSecond, clock: deps.clock });
  const wire = (row: BrowserSessionRow): SessionWire => sessionToWire(row, deps.publicBase());

  /** The upstream a proxy_config asks for; request-level problems are 400/403 before anything is spent. */
  function upstreamOf(auth: AuthContext, body: CreateSessionRequest): SessionUpstream | null {
    const p = body.proxy_config;
    if (!p) return null;
    if (p.type === "managed") {
      const url = deps.browser.countryProxies[p.country_code as ProxyCountry];
      if (!url) {
        throw invalid(
          ["proxy_config", "country_code"],
          `this server has no proxy for ${p.country_code}; ask its operator to configure one (OSPREY_PROXY_COUNTRIES)`,
        );
      }
      return { url, trusted: true };
    }
    if (!auth.account.entitlements.includes("custom_proxy")) {
      throw new AppError("FORBIDDEN", "proxy_config.type custom needs the custom_proxy entitlement, which this account lacks.");
    }
    const problem = proxyUrlProblem(p.url);
    if (problem) throw invalid(["proxy_config", "url"], problem);
    // The literal is judged now for a clear 400; the egress proxy judges the resolved address again at every connection.
    const check = checkUrl(new URL(p.url).origin, deps.allowPrivateHosts);
    if (!check.ok) throw invalid(["proxy_config", "url"], `the proxy address is refused: ${check.reason}`);
    return { url: p.url, trusted: false };
  }

  async function endRow(row: BrowserSessionRow, reason: string): Promise<void> {
    if (row.status === "ended") return;
    const held = await deps.host.end(row.id, reason);
    // A session no live host holds (its host died): its row still ends, with the last counts recorded.
    if (!held) await repo.end(row.id, { reason, at: deps.clock.now(), rxBytes: null, txBytes: null });
  }

  /** The profile a create names: the caller's own (404 otherwise), its seed the session's. */
  async function profileOf(auth: AuthContext, body: CreateSessionRequest) {
    const id = body.profile_id as string;
    const profile = deps.profiles ? await deps.profiles.resolve(auth.account.id, id) : null;
    if (!profile) throw new AppError("NOT_FOUND", `No browser context profile ${id}.`);
    if (body.fingerprint_seed !== undefined && body.fingerprint_seed !== profile.fingerprintSeed) {
      throw invalid(
        ["fingerprint_seed"],
        "a session started from a profile uses the profile's fingerprint_seed (the same device every time); leave it out",
      );
    }
    return profile;
  }

  /** The live view: an open session found by its token (the URL is the credential, as for runs). */
  async function liveSession(token: string): Promise<BrowserSessionRow> {
    const row = /^[A-Za-z0-9]{32}$/.test(token) ? await repo.getOpenByToken(token) : null;
    if (!row) throw new AppError("NOT_FOUND", "No live view at this address (the session may have ended).");
    return row;
  }

  return {
    async create(auth: AuthContext, request: CreateSessionRequest, how: CreateSessionOptions = {}): Promise<SessionWire> {
      if (request.persist !== undefined && request.profile_id === undefined) {
        throw invalid(["persist"], "persist applies to a session started from a profile: give profile_id too");
      }
      const profile = request.profile_id === undefined ? null : await profileOf(auth, request);
      // The profile's exit country, unless the request names its own proxy.
      const body: CreateSessionRequest =
        profile?.proxyCountryCode && !request.proxy_config
          ? { ...request, proxy_config: { type: "managed", country_code: profile.proxyCountryCode as ProxyCountry } }
          : request;
      const upstream = upstreamOf(auth, body);
      // Counted before the browser is taken, given back if the create is refused after all (a
      // refused request does not count: a client retrying a full account is not rate-limited for it).
      const counted = await deps.rateLimits.consume(auth, "browser");
      const now = deps.clock.now();
      const options: StoredSessionOptions = {
        timeout_seconds: body.timeout_seconds,
        inactivity_timeout_seconds: body.inactivity_timeout_seconds,
        viewport: body.viewport ?? { ...SESSION_LIMITS.viewport.default },
        fingerprint_seed: profile?.fingerprintSeed ?? body.fingerprint_seed ?? randomBytes(12).toString("base64url"),
        proxy: body.proxy_config
          ? {
              type: body.proxy_config.type,
              country_code: body.proxy_config.type === "managed" ? body.proxy_config.country_code : null,
            }
          : null,
        profile_id: profile?.id ?? null,
        persist: profile !== null && how.setupOf === undefined && body.persist !== false,
        setup: how.setupOf !== undefined,
      };
      const max = auth.account.limits.maxBrowserSessions;
      const inserted = await repo.insertWithinCap(
        {
          id: newId("bs"),
          accountId: auth.account.id,
          keyId: auth.keyId,
          keyScope: auth.scope,
          subUserId: auth.subUserId,
          mode: body.mode,
          options: { ...options },
          connectToken: randomBase62(32),
          hostId: deps.host.hostId,
          hostUrl: deps.host.hostUrl,
          startTime: now,
          expiresAt: new Date(now.getTime() + body.timeout_seconds * 1000),
          createdAt: now,
          updatedAt: now,
        },
        max,
      );
      if (!inserted.ok) {
        await counted.release();
        throw new AppError(
          "RATE_LIMIT_EXCEEDED",
          `This account has ${inserted.open} open browser sessions, the most its plan allows is ${max}; end one (DELETE) or wait for one to time out.`,
          { headers: { "Retry-After": String(BUSY_RETRY_SECONDS) } },
        );
      }
      const row = inserted.row;
      try {
        await deps.host.start({
          id: row.id,
          accountId: row.accountId,
          token: row.connectToken,
          mode: body.mode,
          viewport: options.viewport,
          fingerprintSeed: options.fingerprint_seed,
          countryCode: options.proxy?.country_code ?? null,
          upstream,
          startedAt: row.startTime,
          expiresAt: row.expiresAt,
          inactivityMs: body.inactivity_timeout_seconds * 1000,
          profile: profile ? { id: profile.id, persist: options.persist } : null,
        });
      } catch (err) {
        await repo.end(row.id, { reason: "start_failed", at: deps.clock.now(), rxBytes: 0, txBytes: 0 });
        await counted.release();
        if (err instanceof SessionHostBusyError) {
          throw new AppError("SERVICE_BUSY", `No browser is free on this server right now; retry in ${BUSY_RETRY_SECONDS} s.`, {
            headers: { "Retry-After": String(BUSY_RETRY_SECONDS) },
          });
        }
        deps.logger.error("browser session could not start", { session_id: row.id, error: err });
        throw new AppError("SERVICE_BUSY", "The browser could not be started; retry shortly.", {
          headers: { "Retry-After": String(BUSY_RETRY_SECONDS) },
          cause: err,
        });
      }
      return wire((await repo.get(row.id)) ?? row);
    },

    async get(auth: AuthContext, id: string): Promise<SessionWire> {
      const row = await repo.getOwned(id, auth.account.id, auth.scope);
      if (!row) throw new AppError("NOT_FOUND", `No browser session ${id}.`);
      return wire(row);
    },

    /** Spec 3.2: ends the session at once; an ended session answers the same (idempotent). */
    async end(auth: AuthContext, id: string, reason = "deleted"): Promise<void> {
      const row = await repo.getOwned(id, auth.account.id, auth.scope);
      if (!row) throw new AppError("NOT_FOUND", `No browser session ${id}.`);
      await endRow(row, reason);
    },

    /** The account's open setup session of `profileId`, or null. */
    async openSetup(auth: AuthContext, profileId: string): Promise<SessionWire | null> {
      const row = await repo.openSetup(auth.account.id, profileId);
      return row ? wire(row) : null;
    },

    /**
     * A setup session's two endings: `save` writes the browser's state to its profile first, then
     * ends it (profile_saved); otherwise it ends without writing (setup_cancelled). 404 when the
     * profile has no open setup session; 503 when its browser cannot be reached to save it.
     */
    async finishSetup(auth: AuthContext, profileId: string, save: boolean): Promise<SessionWire> {
      const row = await repo.openSetup(auth.account.id, profileId);
      if (!row) {
        throw new AppError(
          "NOT_FOUND",
          `Browser Context Profile ${profileId} has no open setup session (start one with POST /v1/profiles/${profileId}/setup-session).`,
        );
      }
      if (save) {
        const saved = await deps.host.saveProfile(row.id);
        if (saved !== "saved") {
          throw new AppError("SERVICE_BUSY", "The setup session's browser could not be reached to save it; retry shortly.", {
            headers: { "Retry-After": String(BUSY_RETRY_SECONDS) },
          });
        }
      }
      await endRow(row, save ? "profile_saved" : "setup_cancelled");
      return wire((await repo.get(row.id)) ?? row);
    },

    liveSession,

    async liveFrame(token: string): Promise<Buffer> {
      const row = await liveSession(token);
      const frame = await deps.host.liveFrame(row);
      if (!frame) throw new AppError("NOT_FOUND", "No frame yet: the session has no page open.");
      return frame;
    },

    /**
     * A person's input on the live view (POST …/live/{token}/input). The limit is counted before
     * the session is looked up, so a flood costs no database reads past its first 50 a second.
     */
    async liveInput(token: string, event: LiveInputEvent): Promise<void> {
      const wait = inputBuckets.take(token);
      if (wait > 0) {
        throw new AppError(
          "RATE_LIMIT_EXCEEDED",
          `More than ${LIVE_INPUT_LIMITS.eventsPerSecond} input events a second on this live view; retry in ${wait} s.`,
          { headers: { "Retry-After": String(wait) } },
        );
      }
      const row = await liveSession(token);
      if (event.type === "navigate") {
        // The literal is judged now for a clear answer; the egress proxy judges every address the browser connects to.
        const check = checkUrl(event.url, deps.allowPrivateHosts);
        if (!check.ok) throw invalid(["url"], `this address cannot be opened: ${check.reason}`);
      }
      const result = await deps.host.liveInput(row, event);
      if (result === "no_page") {
        throw new AppError("NOT_FOUND", "The session has no tab open to take this input; navigate opens one.");
      }
      if (result === "gone") throw new AppError("NOT_FOUND", "No live view at this address (the session may have ended).");
      if (result === "unreachable") {
        throw new AppError("SERVICE_BUSY", "The session's browser could not be reached; retry shortly.", {
          headers: { "Retry-After": "1" },
        });
      }
    },

    async usage(auth: AuthContext, filter: SessionUsageFilter, page: PageRequest): Promise<Page<SessionUsageWire>> {
      const { items, total } = await repo.usage(auth.account.id, auth.scope, filter, page);
      return toPage(items.map(sessionUsageToWire), total, page);
    },
  };
}

export type SessionService = ReturnType<typeof sessionService>;
