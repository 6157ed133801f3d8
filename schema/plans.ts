/**
 * Plans, entitlements and their defaults (spec 5, 8). An account's effective entitlements are its
 * plan's defaults plus the ones an operator granted minus the ones an operator revoked; its limits
 * are the plan's unless an operator set a custom value for that account.
 */

export const PLANS = ["free", "payg", "starter", "pro"] as const;
export type Plan = (typeof PLANS)[number];

export const ENTITLEMENTS = [
  /** beta features: agent_config.mode strict, agent_config.max_steps (spec 4.1, 9.4) */
  "beta",
  /** proxy_config.type custom (spec 4.1) */
  "custom_proxy",
  /** output_schema on runs (spec 4.1) */
  "output_schema",
  /** capture_config capabilities (spec 4.1) */
  "capture_elements",
  "capture_snapshots",
  "capture_screenshots",
  "capture_recording",
  "capture_html",
  /** Search API access (spec 5.7); every plan includes it by default */
  "search_access",
] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

export interface PlanLimits {
  /** Search requests per minute per API key (spec 8). */
  searchRpm: number;
  /** Fetch URLs per minute per API key, counted across requests (spec 8: values are ours). */
  fetchUpm: number;
  /** Pending-run cap: runs not yet terminal (spec 8: equal to the plan concurrency limit). */
  maxPendingRuns: number;
  /** Remote browser sessions open at once (created or running) per account (spec 8: values are ours). */
  maxBrowserSessions: number;
  /** Browser sessions created per minute per API key (spec 8: values are ours). */
  browserSessionsPerMinute: number;
}

export interface PlanDefinition {
  entitlements: readonly Entitlement[];
  limits: PlanLimits;
  /**
   * Credits a new account on this plan starts with (1 credit per agent step), so that an account
   * an operator creates on a self-hosted server can run at once. Values are ours; nothing tops
   * them up monthly yet: an operator adds more with `osprey accounts credits`.
   */
  monthlyCredits: number;
}

export const PLAN_DEFINITIONS: Record<Plan, PlanDefinition> = {
  free: {
    monthlyCredits: 1_000,
    entitlements: ["search_access", "capture_screenshots"],
    limits: { searchRpm: 30, fetchUpm: 60, maxPendingRuns: 2, maxBrowserSessions: 1, browserSessionsPerMinute: 5 },
  },
  payg: {
    monthlyCredits: 2_000,
    entitlements: ["search_access", "capture_screenshots", "capture_html", "output_schema"],
    limits: { searchRpm: 30, fetchUpm: 120, maxPendingRuns: 5, maxBrowserSessions: 3, browserSessionsPerMinute: 10 },
  },
  starter: {
    monthlyCredits: 5_000,
    entitlements: [
      "search_access",
      "capture_screenshots",
      "capture_html",
      "capture_elements",
      "capture_snapshots",
      "output_schema",
    ],
    limits: { searchRpm: 60, fetchUpm: 300, maxPendingRuns: 10, maxBrowserSessions: 5, browserSessionsPerMinute: 30 },
  },
  pro: {
    monthlyCredits: 10_000,
    entitlements: [
      "search_access",
      "capture_screenshots",
      "capture_html",
      "capture_elements",
      "capture_snapshots",
      "capture_recording",
      "output_schema",
      "custom_proxy",
    ],
    limits: { searchRpm: 120, fetchUpm: 600, maxPendingRuns: 25, maxBrowserSessions: 10, browserSessionsPerMinute: 60 },
  },
};

export interface EntitlementOverrides {
  granted: readonly string[];
  revoked: readonly string[];
}

/** Plan defaults ∪ granted − revoked, in the canonical order of ENTITLEMENTS. */
export function effectiveEntitlements(plan: Plan, overrides: EntitlementOverrides): Entitlement[] {
  const set = new Set<string>(PLAN_DEFINITIONS[plan].entitlements);
  for (const e of overrides.granted) set.add(e);
  for (const e of overrides.revoked) set.delete(e);
  return ENTITLEMENTS.filter((e) => set.has(e));
}

export interface CustomLimits {
  searchRpm: number | null;
  fetchUpm: number | null;
  maxPendingRuns: number | null;
}

/** The plan's limits with any per-account (operator-set) value in its place. */
export function effectiveLimits(plan: Plan, custom: CustomLimits): PlanLimits {
  const base = PLAN_DEFINITIONS[plan].limits;
  return {
    searchRpm: custom.searchRpm ?? base.searchRpm,
    fetchUpm: custom.fetchUpm ?? base.fetchUpm,
    maxPendingRuns: custom.maxPendingRuns ?? base.maxPendingRuns,
    // No per-account override yet: an operator changes these for a plan, not an account.
    maxBrowserSessions: base.maxBrowserSessions,
    browserSessionsPerMinute: base.browserSessionsPerMinute,
  };
}
