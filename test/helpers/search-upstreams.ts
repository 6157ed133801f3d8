import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SearchQuery } from "../../functions/search/types.ts";
import { writeEndlessJson } from "./endless.ts";
import { braveNews, braveWeb, openAlexWorks, searxngNews, searxngWeb } from "./search-upstream-fixtures.ts";

/**
 * Local stand-ins for the upstream search APIs on 127.0.0.1: each answers in its real JSON format (fixtures
 * in search-upstream-fixtures.ts), ignores filters (so tests can see our post-filtering), records every
 * request, and can be switched to misbehave.
 */

export type Behaviour =
  | { kind: "ok" }
  /** Answers normally after `delayMs`. */
  | { kind: "slow"; delayMs: number }
  /** Answers `status` with the upstream's own error body; `retryAfter` sets Retry-After. */
  | { kind: "status"; status: number; retryAfter?: string }
  /** 200 with a JSON content type and a body that is not JSON. */
  | { kind: "invalid-json" }
  /** 200 with a body of the caller's choosing. */
  | { kind: "body"; body: unknown }
  /** 200 with a JSON content type and a body that never ends (chunked, written until the client goes). */
  | { kind: "endless" };

export interface RecordedRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingMessage["headers"];
}

export interface UpstreamStub {
  url: string;
  requests: RecordedRequest[];
  /** The last request; throws when none came. */
  last(): RecordedRequest;
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

interface StubSpec {
  /** The 200 body for a request, or undefined for a 404. */
  answer(req: RecordedRequest): unknown;
  /** The upstream's error body and content type for `status`. */
  error(status: number, req: RecordedRequest): { body: string; type: string };
  /** Checked before the behaviour: an error status to answer instead (e.g. a wrong API key). */
  guard?(req: RecordedRequest): number | undefined;
}

async function startStub(spec: StubSpec): Promise<UpstreamStub> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let behaviour: Behaviour = { kind: "ok" };

  const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(body);
  };
  const answer = (req: RecordedRequest, res: ServerResponse, current: Behaviour) => {
    const guarded = spec.guard?.(req);
    if (guarded !== undefined) {
      const e = spec.error(guarded, req);
      return send(res, guarded, e.type, e.body);
    }
    if (current.kind === "status") {
      const e = spec.error(current.status, req);
      const headers: Record<string, string> = current.retryAfter ? { "retry-after": current.retryAfter } : {};
      return send(res, current.status, e.type, e.body, headers);
    }
    if (current.kind === "invalid-json") return send(res, 200, "application/json", '{"results": [{"url": "https://x');
    if (current.kind === "endless")
      return writeEndlessJson(res, '{"results": [', '{"url": "https://endless.example/", "title": "again"},'.repeat(1000));
    const body = current.kind === "body" ? current.body : spec.answer(req);
    if (body === undefined) return send(res, 404, "text/plain", "Not Found");
    send(res, 200, "application/json; charset=utf-8", JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const full = new URL(req.url ?? "/", "http://stub");
    const recorded = { method: req.method ?? "GET", path: full.pathname, params: full.searchParams, headers: req.headers };
    requests.push(recorded);
    const current = behaviour;
    if (current.kind === "slow") {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(recorded, res, { kind: "ok" });
      }, current.delayMs);
      timers.add(timer);
      return;
    }
    answer(recorded, res, current);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    last() {
      const req = requests.at(-1);
      if (!req) throw new Error("the stub saw no request");
      return req;
    },
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * SearXNG: `/search` (and `/`). With `jsonEnabled: false` it answers format=json with 403, as an instance
 * whose settings.yml lacks json in search.formats does.
 */
export function startSearxng(opts: { jsonEnabled?: boolean } = {}): Promise<UpstreamStub> {
  return startStub({
    guard: (req) => (opts.jsonEnabled === false && req.params.get("format") === "json" ? 403 : undefined),
    answer: (req) => {
      if (req.path !== "/search" && req.path !== "/") return undefined;
      return req.params.get("categories") === "news" ? searxngNews : searxngWeb;
    },
    // Flask's abort(403) page, and the limiter's plain-text 429.
    error: (status) =>
      status === 429
        ? { type: "text/plain", body: "Too Many Requests" }
        : {
            type: "text/html; charset=utf-8",
            body: `<!doctype html><html lang=en><title>${status} Forbidden</title><h1>Forbidden</h1><p>You don't have the permission to access the requested resource.</p>`,
          },
  });
}

/** Brave Search API: `/res/v1/web/search` and `/res/v1/news/search`; 401 unless X-Subscription-Token is `apiKey`. */
export function startBrave(apiKey: string): Promise<UpstreamStub> {
  const codes: Record<number, [string, string]> = {
    401: ["SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."],
    422: ["VALIDATION", "Unable to validate request parameter(s)."],
    429: ["RATE_LIMITED", "Request rate limit exceeded for plan."],
  };
  return startStub({
    guard: (req) => (req.headers["x-subscription-token"] === apiKey ? undefined : 401),
    answer: (req) => {
      if (req.path === "/res/v1/web/search") return braveWeb;
      if (req.path === "/res/v1/news/search") return braveNews;
      return undefined;
    },
    // Brave's ErrorResponse; its meta echoes the token it got, so tests can check we never repeat it.
    error: (status, req) => {
      const [code, detail] = codes[status] ?? ["INTERNAL", "Internal server error."];
      const token = String(req.headers["x-subscription-token"] ?? "");
      const error = { id: "c1d4a1e2", status, code, detail, meta: { component: "api", token } };
      return { type: "application/json", body: JSON.stringify({ type: "ErrorResponse", error, time: 1773576000 }) };
    },
  });
}

/** OpenAlex: `/works`; its error body echoes the full request (api_key included), as a careless proxy might. */
export function startOpenAlex(): Promise<UpstreamStub> {
  return startStub({
    answer: (req) => (req.path === "/works" ? openAlexWorks : undefined),
    error: (status, req) => {
      const message = `status ${status} for /works?${req.params.toString()}`;
      const error = status === 429 ? "Rate limit exceeded" : status >= 500 ? "Internal Server Error" : "Forbidden";
      return { type: "application/json", body: JSON.stringify({ error, message }) };
    },
  });
}

/** A resolved query as the service hands it to providers: "osprey", US/en, web, page 0, unless overridden. */
export const searchQuery = (over: Partial<SearchQuery> = {}): SearchQuery => ({
  text: "osprey",
  location: "US",
  language: "en",
  includeDomains: [],
  excludeDomains: [],
  domainType: "web",
  page: 0,
  ...over,
});
