/** Per-URL fetch error codes (spec 7.4): returned as data in `errors[]`, alongside HTTP 200. */
export const FETCH_ERROR_CODES = [
  "target_http_error",
  "page_not_found",
  "target_unreachable",
  "timeout",
  "bot_blocked",
  "empty_content",
  "invalid_url",
  "invalid_redirect_url",
  "proxy_error",
  "conditional_unsupported",
  "selector_not_matched",
  "selector_unsupported",
] as const;

export type FetchErrorCode = (typeof FETCH_ERROR_CODES)[number];

/** One failed URL (spec 2.6). */
export interface FetchFailure {
  url: string;
  error: FetchErrorCode;
  status?: number;
  unmatchedSelectors?: string[];
  candidateSelectors?: string[];
}
