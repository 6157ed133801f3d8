import type { SearchProvider } from "../types.ts";
import { createBraveProvider } from "./brave.ts";
import { createOpenAlexProvider } from "./openalex.ts";
import { createSearxngProvider } from "./searxng.ts";

/**
 * The upstream search settings, as parsed from the environment by functions/config/config.ts:
 * OSPREY_SEARXNG_URL, OSPREY_BRAVE_API_KEY, OSPREY_BRAVE_URL, OSPREY_OPENALEX_URL, OSPREY_OPENALEX_API_KEY.
 */
export interface UpstreamConfig {
  /** SearXNG base URL; SearXNG is on when set. Its JSON format must be enabled (search.formats in settings.yml). */
  searxngUrl?: string;
  /** Brave Search API key; Brave is on when set. */
  braveApiKey?: string;
  /** Brave API base; default https://api.search.brave.com. */
  braveUrl?: string;
  /** OpenAlex base URL; OpenAlex (research_paper only) is on when this or the API key is set. */
  openalexUrl?: string;
  openalexApiKey?: string;
  /** Polite-pool contact address for OpenAlex (optional). */
  openalexMailto?: string;
  /** Per-request upstream timeout; default 5000 ms. */
  timeoutMs?: number;
}

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/** The upstream providers the configuration turns on, in a stable order: searxng, brave, openalex. */
export function providersFromEnv(cfg: UpstreamConfig): SearchProvider[] {
  const providers: SearchProvider[] = [];
  const timeoutMs = cfg.timeoutMs;
  if (present(cfg.searxngUrl)) providers.push(createSearxngProvider({ baseUrl: cfg.searxngUrl.trim(), timeoutMs }));
  if (present(cfg.braveApiKey)) {
    providers.push(
      createBraveProvider({
        apiKey: cfg.braveApiKey.trim(),
        ...(present(cfg.braveUrl) ? { baseUrl: cfg.braveUrl.trim() } : {}),
        timeoutMs,
      }),
    );
  }
  if (present(cfg.openalexUrl) || present(cfg.openalexApiKey)) {
    providers.push(
      createOpenAlexProvider({
        ...(present(cfg.openalexUrl) ? { baseUrl: cfg.openalexUrl.trim() } : {}),
        ...(present(cfg.openalexApiKey) ? { apiKey: cfg.openalexApiKey.trim() } : {}),
        ...(present(cfg.openalexMailto) ? { mailto: cfg.openalexMailto.trim() } : {}),
        timeoutMs,
      }),
    );
  }
  return providers;
}

/** The same, from the parsed configuration's search section (nulls for unset settings). */
export function providersFromConfig(
  search: { [K in Exclude<keyof UpstreamConfig, "timeoutMs">]: string | null },
): SearchProvider[] {
  const set = (v: string | null) => v ?? undefined;
  return providersFromEnv({
    searxngUrl: set(search.searxngUrl),
    braveApiKey: set(search.braveApiKey),
    braveUrl: set(search.braveUrl),
    openalexUrl: set(search.openalexUrl),
    openalexApiKey: set(search.openalexApiKey),
    openalexMailto: set(search.openalexMailto),
  });
}
