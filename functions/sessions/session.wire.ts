import type { BrowserSessionRow } from "./session.repo.ts";
import { SESSION_LIMITS } from "./session.schemas.ts";

/** What a session's options column keeps: everything but a custom proxy's URL (it may hold a password). */
export interface StoredSessionOptions {
  timeout_seconds: number;
  inactivity_timeout_seconds: number;
  viewport: { width: number; height: number };
  fingerprint_seed: string;
  proxy: { type: "managed" | "custom"; country_code: string | null } | null;
  profile_id: string | null;
  /** With profile_id: whether the browser's state is written back to the profile when the session ends. */
  persist: boolean;
  /** A profile's setup session (POST /v1/profiles/{id}/setup-session): saved only by its save endpoint. */
  setup: boolean;
}

export interface SessionWire {
  session_id: string;
  status: "created" | "running" | "ended";
  mode: "light" | "stealth" | "svc-browser";
  cdp_url: string | null;
  live_view_url: string | null;
  created_at: string;
  expires_at: string;
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  timeout_seconds: number;
  inactivity_timeout_seconds: number;
  viewport: { width: number; height: number };
  fingerprint_seed: string;
  proxy: { type: "managed" | "custom"; country_code: string | null } | null;
  end_reason: string | null;
  proxy_trg_rx_bytes: number | null;
  proxy_trg_tx_bytes: number | null;
  profile_id: string | null;
}

/** Spec 2.4: every field present, nullable ones null. */
export interface SessionUsageWire {
  session_id: string;
  user_id: string;
  sub_user_id: string | null;
  mode: "light" | "stealth" | "svc-browser";
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  proxy_trg_rx_bytes: number | null;
  proxy_trg_tx_bytes: number | null;
  status: "created" | "running" | "ended";
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The stored options read back with defaults, never cast blindly (a row written by an older version still reads). */
export function storedOptions(row: Pick<BrowserSessionRow, "options" | "startTime" | "expiresAt">): StoredSessionOptions {
  const o = row.options as Partial<Record<keyof StoredSessionOptions, unknown>>;
  const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
  const vp = o.viewport as { width?: unknown; height?: unknown } | undefined;
  const proxy = o.proxy as { type?: unknown; country_code?: unknown } | null | undefined;
  return {
    timeout_seconds: num(o.timeout_seconds, Math.round((row.expiresAt.getTime() - row.startTime.getTime()) / 1000)),
    inactivity_timeout_seconds: num(o.inactivity_timeout_seconds, SESSION_LIMITS.inactivitySeconds.default),
    viewport: {
      width: num(vp?.width, SESSION_LIMITS.viewport.default.width),
      height: num(vp?.height, SESSION_LIMITS.viewport.default.height),
    },
    fingerprint_seed: typeof o.fingerprint_seed === "string" ? o.fingerprint_seed : "",
    proxy:
      proxy && (proxy.type === "managed" || proxy.type === "custom")
        ? { type: proxy.type, country_code: typeof proxy.country_code === "string" ? proxy.country_code : null }
        : null,
    profile_id: typeof o.profile_id === "string" ? o.profile_id : null,
    persist: o.persist === true,
    setup: o.setup === true,
  };
}

/** `base` is the browser surface's public URL; the CDP URL is its websocket twin. */
export function sessionToWire(row: BrowserSessionRow, base: string): SessionWire {
  const o = storedOptions(row);
  const open = row.status !== "ended";
  const http = base.replace(/\/$/, "");
  const ws = http.replace(/^http/, "ws");
  return {
    session_id: row.id,
    status: row.status,
    mode: row.mode,
    cdp_url: open ? `${ws}/${row.id}/cdp?token=${row.connectToken}` : null,
    live_view_url: open ? `${http}/live/${row.connectToken}` : null,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    start_time: row.startTime.toISOString(),
    end_time: iso(row.endTime),
    duration_ms: row.durationMs,
    timeout_seconds: o.timeout_seconds,
    inactivity_timeout_seconds: o.inactivity_timeout_seconds,
    viewport: o.viewport,
    fingerprint_seed: o.fingerprint_seed,
    proxy: o.proxy,
    end_reason: row.endReason,
    proxy_trg_rx_bytes: row.proxyRxBytes,
    proxy_trg_tx_bytes: row.proxyTxBytes,
    profile_id: o.profile_id,
  };
}

export function sessionUsageToWire(row: BrowserSessionRow): SessionUsageWire {
  return {
    session_id: row.id,
    user_id: row.accountId,
    sub_user_id: row.subUserId,
    mode: row.mode,
    start_time: row.startTime.toISOString(),
    end_time: iso(row.endTime),
    duration_ms: row.durationMs,
    proxy_trg_rx_bytes: row.proxyRxBytes,
    proxy_trg_tx_bytes: row.proxyTxBytes,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
