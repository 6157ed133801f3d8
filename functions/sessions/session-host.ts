/**
 * The port between the browser session API (edge side) and whatever holds the browsers: in
 * single-machine mode the in-process host (containers/sessions/session-host.ts); in the cloud the
 * browser containers, which serve this surface themselves behind the load balancer (README, "Cloud
 * mode"). The API never touches Chromium; the host never parses HTTP bodies.
 */

import type { LiveInputEvent } from "./live-input.schemas.ts";

export interface SessionUpstream {
  /** http(s)://[user:pass@]host:port: never logged, never stored. */
  url: string;
  /** Operator-configured (may be private); a caller's custom proxy is judged by the address policy. */
  trusted: boolean;
}

export interface SessionLaunch {
  id: string;
  accountId: string;
  /** The bearer credential of the CDP and live-view URLs. */
  token: string;
  mode: "light" | "stealth";
  viewport: { width: number; height: number };
  fingerprintSeed: string;
  /** For stealth: the timezone and locale of this country. */
  countryCode: string | null;
  upstream: SessionUpstream | null;
  startedAt: Date;
  /** The hard cap: the host ends the session then. */
  expiresAt: Date;
  inactivityMs: number;
  /**
   * The Browser Context Profile the browser starts from (loaded before start resolves) and whether
   * its state is written back when the session ends (persist). A setup session has persist false
   * and is saved only by saveProfile.
   */
  profile: { id: string; persist: boolean } | null;
}

export interface SessionHost {
  /** Stored on each session row: which host holds its browser. */
  readonly hostId: string;
  /** Stored on each session row: where other hosts forward its CDP connections and frames (null: one host). */
  readonly hostUrl: string | null;
  /** Gives the session a browser (a warm one when there is one). Throws SessionHostBusyError when full. */
  start(launch: SessionLaunch): Promise<void>;
  /**
   * Ends the session's browser if this host holds it and writes its final usage; resolves once the
   * browser is gone. A session this host does not hold is left to the caller (the row is ended there).
   */
  end(id: string, reason: string): Promise<boolean>;
  /**
   * Writes the session's browser state to its profile now (the setup session's save). "saved";
   * "no_profile" for a session without one; "not_here" when this host does not hold the session.
   */
  saveProfile(id: string): Promise<"saved" | "no_profile" | "not_here">;
  /** A JPEG of the session's active tab (the live view), from this host or the one holding it; null without one. */
  liveFrame(session: LiveSessionRef): Promise<Buffer | null>;
  /**
   * A person's input from the live view, on the session's active tab (a navigate with no tab open
   * opens one), on this host or forwarded to the one holding the session. Counts as the session's
   * activity (its inactivity timeout starts again). "done" once the browser took it (a navigation
   * may still be loading); "no_page" when there is no tab to take it; "gone" when no host holds the
   * session; "unreachable" when the host holding it could not be reached.
   */
  liveInput(session: LiveSessionRef, event: LiveInputEvent): Promise<LiveInputResult>;
}

/** What the live view knows of a session: where it is held and the token its live view answers to. */
export interface LiveSessionRef {
  id: string;
  hostId: string;
  hostUrl: string | null;
  connectToken: string;
}

export type LiveInputResult = "done" | "no_page" | "gone" | "unreachable";

/** No capacity for another browser on this host right now (a 503 with Retry-After). */
export class SessionHostBusyError extends Error {
  override name = "SessionHostBusyError";
}
