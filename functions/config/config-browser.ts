import { z } from "zod";
import { parseUpstreamUrl } from "../net/upstream-url.ts";
import { emptyAsUndefined, optionalPort } from "./config-env.ts";

/**
 * Remote browser sessions (spec 4.5, issue [2 of 6]): the warm pool, a host's capacity and the
 * operator's upstream proxies per country. Environment fields (part of config.ts's schema) and
 * their mapping into `Config`; reads no environment itself.
 */

/** The proxy countries of spec 2.3 (Browser Context Profile proxy_country_code). */
export const PROXY_COUNTRIES = ["US", "GB", "CA", "AU", "DE", "FR", "IT", "ES", "NL", "JP", "SG", "BR", "IN"] as const;
export type ProxyCountry = (typeof PROXY_COUNTRIES)[number];

const intSetting = (min: number, max: number, fallback: number) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: `must be an integer between ${min} and ${max}` })
      .int(`must be an integer between ${min} and ${max}`)
      .min(min, `must be an integer between ${min} and ${max}`)
      .max(max, `must be an integer between ${min} and ${max}`)
      .default(fallback),
  );

/** Why an upstream proxy URL cannot be used (the egress proxy's own rules), or null; never quotes the URL. */
export function proxyUrlProblem(value: string): string | null {
  const check = parseUpstreamUrl(value);
  return check.ok ? null : check.reason;
}

/** `US=http://user:pass@proxy-us:8080,DE=http://proxy-de:3128` → a map; a bad entry names itself (never its password). */
const countryProxies = z.preprocess(emptyAsUndefined, z.string().default("")).transform((v, ctx) => {
  const out: Partial<Record<ProxyCountry, string>> = {};
  for (const raw of v.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const code = (eq > 0 ? item.slice(0, eq) : item).trim().toUpperCase();
    const url = eq > 0 ? item.slice(eq + 1).trim() : "";
    if (!(PROXY_COUNTRIES as readonly string[]).includes(code)) {
      ctx.addIssue({ code: "custom", message: `has an entry for "${code}", which is not one of ${PROXY_COUNTRIES.join(", ")}` });
      return z.NEVER;
    }
    const problem = url ? proxyUrlProblem(url) : "the URL is empty";
    if (problem) {
      ctx.addIssue({
        code: "custom",
        message: `has a bad proxy URL for ${code}: ${problem} (entries are CC=http://[user:pass@]host:port)`,
      });
      return z.NEVER;
    }
    out[code as ProxyCountry] = url;
  }
  return out;
});

export const BrowserEnvFields = {
  OSPREY_BROWSER_SESSIONS: z.preprocess(emptyAsUndefined, z.enum(["on", "off"], { error: "must be on or off" }).default("on")),
  OSPREY_BROWSER_WARM_POOL: intSetting(0, 64, 2),
  OSPREY_BROWSER_MAX_SESSIONS: intSetting(1, 512, 16),
  OSPREY_PROXY_COUNTRIES: countryProxies,
  OSPREY_BROWSER_PORT: optionalPort,
  OSPREY_BROWSER_HOST_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine(
        (v) => /^https?:\/\/[^/]+\/?$/.test(v) && URL.canParse(v),
        "must be an http(s) URL with no path, e.g. http://10.0.1.23:8082",
      )
      .optional(),
  ),
  OSPREY_BROWSER_PUBLIC_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL, e.g. https://browser.example.com")
      .optional(),
  ),
};

type BrowserEnv = {
  OSPREY_BROWSER_SESSIONS: "on" | "off";
  OSPREY_BROWSER_WARM_POOL: number;
  OSPREY_BROWSER_MAX_SESSIONS: number;
  OSPREY_PROXY_COUNTRIES: Partial<Record<ProxyCountry, string>>;
  OSPREY_BROWSER_PORT?: number | undefined;
  OSPREY_BROWSER_HOST_URL?: string | undefined;
  OSPREY_BROWSER_PUBLIC_URL?: string | undefined;
};

export interface BrowserConfig {
  /** Off: the browser surface answers 404 and no warm pool is kept. */
  sessionsEnabled: boolean;
  /** Chromium processes kept launched and waiting, so creating a session does not wait for a launch. */
  warmPool: number;
  /** Sessions one host holds at once (its memory decides: each is a Chromium process). */
  maxSessions: number;
  /** Operator-configured upstream proxy per country, for proxy_config {type: managed, country_code}. */
  countryProxies: Partial<Record<ProxyCountry, string>>;
  /** `osprey worker` serves the browser surface (sessions, CDP) on this port: a browser container behind the load balancer. */
  port: number | null;
  /** Where other browser containers reach this one (its private address and OSPREY_BROWSER_PORT); null: one host. */
  hostUrl: string | null;
  /**
   * Where clients reach the browser surface of `osprey worker` (the load balancer in front of the
   * containers): the base of the cdp_url and live_view_url it hands out. Apart from OSPREY_PUBLIC_URL,
   * which is the agent surface's (run live views, webhooks) and lives on another host in the cloud.
   */
  publicUrl: string | null;
}

export function browserConfig(e: BrowserEnv): { browser: BrowserConfig } {
  return {
    browser: {
      sessionsEnabled: e.OSPREY_BROWSER_SESSIONS === "on",
      warmPool: e.OSPREY_BROWSER_WARM_POOL,
      maxSessions: e.OSPREY_BROWSER_MAX_SESSIONS,
      countryProxies: e.OSPREY_PROXY_COUNTRIES,
      port: e.OSPREY_BROWSER_PORT ?? null,
      hostUrl: e.OSPREY_BROWSER_HOST_URL?.replace(/\/$/, "") ?? null,
      publicUrl: e.OSPREY_BROWSER_PUBLIC_URL?.replace(/\/$/, "") ?? null,
    },
  };
}
