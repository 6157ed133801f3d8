import { z } from "@hono/zod-openapi";
import { PROXY_COUNTRIES } from "../config/config-browser.ts";
import { timestampParam } from "../lib/date-params.ts";
import { PaginationQuery } from "../lib/pagination.ts";

/**
 * The browser session API's wire shapes. Creation is "not shown" by the spec (4.8): it follows the
 * peers (Browserbase, Steel, Browserless): a POST answers 201 with the session and a CDP websocket
 * URL that puppeteer.connect / chromium.connectOverCDP accept as they are.
 */

export const SESSION_LIMITS = {
  timeoutSeconds: { min: 60, max: 21_600, default: 900 },
  inactivitySeconds: { min: 10, max: 21_600, default: 300 },
  viewport: { minWidth: 320, maxWidth: 3840, minHeight: 240, maxHeight: 2160, default: { width: 1280, height: 800 } },
} as const;

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const ProxyConfigSchema = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("managed"),
        country_code: z
          .enum(PROXY_COUNTRIES)
          .openapi({ description: "Exit country; the operator configures one upstream per country." }),
      })
      .strict(),
    z
      .object({
        type: z.literal("custom"),
        url: z.string().min(1).max(2048).openapi({
          description: "Your own HTTP(S) proxy, http://[user:pass@]host:port. Needs the custom_proxy entitlement.",
          example: "http://user:pass@proxy.example.com:8080",
        }),
      })
      .strict(),
  ])
  .openapi("BrowserProxyConfig", {
    description:
      "Where the session's traffic exits. managed: the operator's proxy for country_code (400 when this server has none for it). custom: your proxy (403 without the custom_proxy entitlement). Either way every destination is still checked against the address policy first.",
  });

export const CreateSessionSchema = z
  .object({
    mode: z.enum(["light", "stealth"]).default("light").openapi({
      description:
        "light: a standard Chromium. stealth: no headless tells, a fingerprint from fingerprint_seed, timezone and locale of the proxy country.",
    }),
    timeout_seconds: int(SESSION_LIMITS.timeoutSeconds.min, SESSION_LIMITS.timeoutSeconds.max)
      .default(SESSION_LIMITS.timeoutSeconds.default)
      .openapi({ description: "Hard cap on the session's life, 60 to 21600 seconds (default 900)." }),
    inactivity_timeout_seconds: int(SESSION_LIMITS.inactivitySeconds.min, SESSION_LIMITS.inactivitySeconds.max)
      .default(SESSION_LIMITS.inactivitySeconds.default)
      .openapi({
        description:
          "The session ends after this long with no CDP client connected, no CDP traffic and no live view input, 10 to 21600 seconds (default 300).",
      }),
    proxy_config: ProxyConfigSchema.optional(),
    profile_id: z.string().min(1).max(200).optional().openapi({
      description:
        "A Browser Context Profile (prof_…) of your account to start from: its cookies and localStorage are loaded before you connect, its fingerprint_seed is the session's, and its proxy_country_code the exit (managed proxy) unless proxy_config is given. 404 when it is not your profile.",
    }),
    persist: z.boolean().optional().openapi({
      description:
        "With profile_id (default true): when the session ends (DELETE, the client closing the browser, a timeout), the domains whose cookies or localStorage changed are written back to the profile, per domain, last writer wins. false: the profile is only read. 400 without profile_id.",
    }),
    fingerprint_seed: z.string().min(1).max(256).optional().openapi({
      description: "Same seed, same fingerprint (screen, user agent minor version, canvas and WebGL noise). Default: random.",
    }),
    viewport: z
      .object({
        width: int(SESSION_LIMITS.viewport.minWidth, SESSION_LIMITS.viewport.maxWidth),
        height: int(SESSION_LIMITS.viewport.minHeight, SESSION_LIMITS.viewport.maxHeight),
      })
      .strict()
      .optional()
      .openapi({ description: "Page size in CSS pixels (default 1280×800; in stealth mode the fingerprint's)." }),
  })
  .strict()
  .openapi("CreateBrowserSession");

export type CreateSessionRequest = z.infer<typeof CreateSessionSchema>;

const nullableInt = z.number().int().nullable();

export const SessionSchema = z
  .object({
    session_id: z.string().openapi({ example: "bs_01jd8q3x6f0000000000000000" }),
    status: z.enum(["created", "running", "ended"]),
    mode: z.enum(["light", "stealth", "svc-browser"]),
    cdp_url: z.string().nullable().openapi({
      description:
        "ws(s):// URL for puppeteer.connect({browserWSEndpoint}) or chromium.connectOverCDP(). Its token is the credential (no header needed); connecting with the X-API-Key header of the owning account works too. null once the session has ended.",
    }),
    live_view_url: z.string().nullable().openapi({
      description:
        "A page that shows the session's active tab as it changes, in which a person can also click, type and navigate (POST /live/{token}/input); the same token. null once ended.",
    }),
    created_at: z.string().datetime(),
    expires_at: z
      .string()
      .datetime()
      .openapi({ description: "created_at + timeout_seconds: the session ends then at the latest." }),
    start_time: z.string().datetime(),
    end_time: z.string().datetime().nullable(),
    duration_ms: nullableInt,
    timeout_seconds: z.number().int(),
    inactivity_timeout_seconds: z.number().int(),
    viewport: z.object({ width: z.number().int(), height: z.number().int() }),
    fingerprint_seed: z.string(),
    proxy: z
      .object({ type: z.enum(["managed", "custom"]), country_code: z.string().nullable() })
      .nullable()
      .openapi({ description: "The exit chosen at creation (a custom proxy's URL is never echoed)." }),
    end_reason: z.string().nullable().openapi({
      description:
        "deleted, browser_close (the client closed the browser), timeout, inactivity, browser_exited, host_stopped, host_lost, or for a profile's setup session profile_saved and setup_cancelled.",
    }),
    proxy_trg_rx_bytes: nullableInt,
    proxy_trg_tx_bytes: nullableInt,
    profile_id: z.string().nullable().openapi({ description: "The Browser Context Profile the session started from." }),
  })
  .openapi("BrowserSession");

export const SessionUsageItemSchema = z
  .object({
    session_id: z.string(),
    user_id: z.string().openapi({ description: "The owning account's id." }),
    sub_user_id: z.string().nullable(),
    mode: z.enum(["light", "stealth", "svc-browser"]),
    start_time: z.string().datetime(),
    end_time: z.string().datetime().nullable(),
    duration_ms: nullableInt,
    proxy_trg_rx_bytes: nullableInt.openapi({ description: "Bytes received from targets through the egress proxy." }),
    proxy_trg_tx_bytes: nullableInt.openapi({ description: "Bytes sent to targets through the egress proxy." }),
    status: z.enum(["created", "running", "ended"]),
    created_at: z.string().datetime(),
    updated_at: z.string().datetime(),
  })
  .openapi("BrowserSessionUsageRecord");

export const SessionUsageQuery = PaginationQuery.extend({
  session_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "session_id", in: "query" }, description: "Only this session." }),
  start_after: timestampParam("start_after", "Sessions started after this time."),
  end_before: timestampParam("end_before", "Sessions ended before this time (open sessions are left out)."),
  status: z
    .enum(["running", "ended"])
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "running (not ended yet, created included) or ended." }),
})
  .strict()
  .refine((q) => !q.start_after || !q.end_before || q.start_after < q.end_before, {
    message: "start_after must be earlier than end_before",
    path: ["start_after"],
  });

export const SessionIdParam = z.object({
  sessionId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "sessionId", in: "path" }, example: "bs_01jd8q3x6f0000000000000000" }),
});
