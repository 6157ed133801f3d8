import type http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AllowedHost } from "../../functions/config/config.ts";
import { MAX_REDIRECTS, type SafeResponse, safeFetch } from "../../functions/net/safe-http.ts";
import { closedPort, type Origin, startOrigin, stubResolver } from "./helpers.ts";

/** The public-facing origin the tests fetch from (exempted), and a private one nobody may reach. */
let origin: Origin;
let secret: Origin;
let allow: AllowedHost[];
const routes = new Map<string, http.RequestListener>();

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const route = routes.get(new URL(req.url ?? "/", "http://x").pathname);
    if (route) route(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("no such route");
  });
  secret = await startOrigin((_req, res) => res.end("internal secrets"));
  allow = [{ host: "127.0.0.1", port: origin.port }];
});
afterAll(async () => {
  await origin.close();
  await secret.close();
});
afterEach(() => {
  routes.clear();
  origin.requests.length = 0;
  vi.restoreAllMocks();
});

const redirect =
  (location: string, status = 302): http.RequestListener =>
  (_req, res) =>
    res.writeHead(status, { location }).end();

const ok = (result: unknown): SafeResponse => {
  expect(result).toMatchObject({ ok: true });
  return result as SafeResponse;
};

describe("safeFetch: responses", () => {
  it("returns status, lower-case headers, body and final URL, with browser-like default headers", async () => {
    routes.set("/page", (req, res) =>
      res.writeHead(200, { "Content-Type": "text/html", "X-Echo-UA": req.headers["user-agent"] }).end("<p>hi</p>"),
    );
    const result = ok(await safeFetch(origin.url("/page?q=1"), { allow }));
    expect(result).toMatchObject({ status: 200, finalUrl: origin.url("/page?q=1"), truncated: false });
    expect(result.body.toString()).toBe("<p>hi</p>");
    expect(result.headers["content-type"]).toBe("text/html");
    const sent = origin.requests[0]?.headers ?? {};
    expect(sent["user-agent"]).toMatch(/Mozilla\/5\.0 .*Osprey/);
    expect(sent["accept-encoding"]).toMatch(/gzip, deflate, br/);
    expect(sent.accept).toContain("text/html");
    expect(sent["accept-language"]).toBeTruthy();
    expect(sent.host).toBe(`127.0.0.1:${origin.port}`);
  });

  it("lets callers override headers but not the Host", async () => {
    routes.set("/h", (_req, res) => res.end());
    await safeFetch(origin.url("/h"), { allow, headers: { "User-Agent": "custom", Host: "evil.example.com", "X-Extra": "1" } });
    const sent = origin.requests[0]?.headers ?? {};
    expect(sent).toMatchObject({ "user-agent": "custom", host: `127.0.0.1:${origin.port}`, "x-extra": "1" });
  });

  it.each([200, 201, 204, 400, 401, 403, 404, 410, 429, 500, 502, 503])(
    "passes status %i through as a response",
    async (status) => {
      routes.set("/s", (_req, res) => res.writeHead(status).end(status === 204 ? undefined : "body"));
      expect(ok(await safeFetch(origin.url("/s"), { allow })).status).toBe(status);
    },
  );

  it("passes a 304 through with conditional headers forwarded verbatim", async () => {
    routes.set("/c", (req, res) => {
      const fresh =
        req.headers["if-none-match"] === '"v1"' && req.headers["if-modified-since"] === "Sat, 21 Nov 2026 00:00:00 GMT";
      res.writeHead(fresh ? 304 : 200, { etag: '"v1"', "content-encoding": "gzip" }).end();
    });
    const headers = { "If-None-Match": '"v1"', "If-Modified-Since": "Sat, 21 Nov 2026 00:00:00 GMT" };
    const result = ok(await safeFetch(origin.url("/c"), { allow, headers }));
    expect(result).toMatchObject({ status: 304, truncated: false });
    expect(result.body.length).toBe(0);
    expect(result.headers.etag).toBe('"v1"');
  });

  it("returns a 3xx without Location as it is", async () => {
    routes.set("/r", (_req, res) => res.writeHead(302).end("moved somewhere"));
    expect(ok(await safeFetch(origin.url("/r"), { allow })).status).toBe(302);
  });
});

describe("safeFetch: redirects", () => {
  it.each([301, 302, 303, 307, 308])("follows %i, relative and protocol-relative, reporting the final URL", async (status) => {
    routes.set("/a/start", redirect("next?step=2", status));
    routes.set("/a/next", redirect(`//127.0.0.1:${origin.port}/b/../final#frag`, status));
    routes.set("/final", (_req, res) => res.end("done"));
    const result = ok(await safeFetch(origin.url("/a/start#top"), { allow }));
    expect(result.body.toString()).toBe("done");
    // A Location with a fragment replaces the request's (WHATWG Fetch); without one it inherits it.
    expect(result.finalUrl).toBe(origin.url("/final#frag"));
    expect(origin.requests.map((r) => r.path)).toEqual(["/a/start", "/a/next?step=2", "/final"]);
  });

  it(`follows exactly ${MAX_REDIRECTS} redirects and fails on the next`, async () => {
    routes.set("/chain", (req, res) => {
      const n = Number(new URL(req.url ?? "", "http://x").searchParams.get("n"));
      if (n < Number(req.headers["x-limit"])) res.writeHead(302, { location: `/chain?n=${n + 1}` }).end();
      else res.end(`arrived after ${n}`);
    });
    const within = ok(await safeFetch(origin.url("/chain?n=0"), { allow, headers: { "x-limit": String(MAX_REDIRECTS) } }));
    expect(within.body.toString()).toBe(`arrived after ${MAX_REDIRECTS}`);
    origin.requests.length = 0;
    const over = await safeFetch(origin.url("/chain?n=0"), { allow, headers: { "x-limit": String(MAX_REDIRECTS + 1) } });
    expect(over).toMatchObject({ ok: false, error: "target_unreachable", detail: expect.stringContaining("redirects") });
    expect(origin.requests.length).toBe(MAX_REDIRECTS + 1);
  });

  it("stops a redirect loop", async () => {
    routes.set("/loop", redirect("/loop"));
    expect(await safeFetch(origin.url("/loop"), { allow })).toMatchObject({ ok: false, error: "target_unreachable" });
    expect(origin.requests.length).toBe(MAX_REDIRECTS + 1);
  });

  const privateTargets = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://127.1:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST.:${port}/`,
    `http://foo.localhost:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://%31%32%37.0.0.1:${port}/`,
    `http://evil.example.com:${port}/`,
    `http://user:pw@127.0.0.1:${origin.port}/`,
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://100.100.100.200/latest/meta-data/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_FLUSHALL",
    "javascript:alert(1)",
    "data:text/plain,hi",
    "http://[::1",
  ];

  it("refuses every private redirect target without connecting to it", async () => {
    // evil.example.com resolves to loopback: the check after DNS must refuse it too.
    const { resolver } = stubResolver({ "evil.example.com": ["127.0.0.1"] });
    for (const target of privateTargets(secret.port)) {
      routes.set("/go", redirect(target));
      const result = await safeFetch(origin.url("/go"), { allow, resolver });
      expect(result, target).toMatchObject({ ok: false, error: "invalid_redirect_url" });
    }
    expect(secret.connections()).toBe(0);
  });

  it("refuses a private target at the end of a longer chain", async () => {
    routes.set("/one", redirect("/two", 301));
    routes.set("/two", redirect("/three", 307));
    routes.set("/three", redirect(`http://0177.0.0.1:${secret.port}/admin`, 308));
    expect(await safeFetch(origin.url("/one"), { allow })).toMatchObject({ ok: false, error: "invalid_redirect_url" });
    expect(origin.requests.map((r) => r.path)).toEqual(["/one", "/two", "/three"]);
    expect(secret.connections()).toBe(0);
  });

  it("drops credentials when a redirect leaves the origin, keeps them within it", async () => {
    const other = await startOrigin((req, res) => res.end(String(req.headers.authorization)));
    try {
      routes.set("/same", redirect("/echo"));
      routes.set("/echo", (req, res) => res.end(String(req.headers.authorization)));
      routes.set("/away", redirect(other.url("/")));
      const both = [...allow, { host: "127.0.0.1", port: other.port }];
      const headers = { Authorization: "Bearer t", Cookie: "c=1" };
      expect(ok(await safeFetch(origin.url("/same"), { allow: both, headers })).body.toString()).toBe("Bearer t");
      expect(ok(await safeFetch(origin.url("/away"), { allow: both, headers })).body.toString()).toBe("undefined");
      expect(other.requests[0]?.headers.cookie).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe("safeFetch: failures", () => {
  it("times out on a server that never answers", async () => {
    routes.set("/hang", () => {});
    const result = await safeFetch(origin.url("/hang"), { allow, signal: AbortSignal.timeout(150) });
    expect(result).toMatchObject({ ok: false, error: "timeout" });
  });

  it("times out on a body that stops halfway", async () => {
    routes.set("/slow", (_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("only the first bytes");
    });
    const result = await safeFetch(origin.url("/slow"), { allow, signal: AbortSignal.timeout(150) });
    expect(result).toMatchObject({ ok: false, error: "timeout" });
  });

  it("times out while DNS hangs", async () => {
    const resolver = () => new Promise<never>(() => {});
    const result = await safeFetch("http://slow-dns.example.com/", { resolver, signal: AbortSignal.timeout(100) });
    expect(result).toMatchObject({ ok: false, error: "timeout" });
  });

  it("does not connect when the signal has already fired", async () => {
    const connects = vi.spyOn(net.Socket.prototype, "connect");
    const result = await safeFetch(origin.url("/"), { allow, signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, error: "timeout" });
    expect(connects).not.toHaveBeenCalled();
  });

  it("reports a refused connection as target_unreachable", async () => {
    const port = await closedPort();
    const result = await safeFetch(`http://127.0.0.1:${port}/`, { allow: [{ host: "127.0.0.1", port }] });
    expect(result).toMatchObject({ ok: false, error: "target_unreachable", detail: expect.stringContaining("ECONNREFUSED") });
  });

  it("reports a DNS failure as target_unreachable", async () => {
    const { resolver } = stubResolver({});
    const result = await safeFetch("https://nxdomain.example.com/", { resolver });
    expect(result).toMatchObject({ ok: false, error: "target_unreachable", detail: expect.stringContaining("ENOTFOUND") });
  });

  it("reports a TLS failure as target_unreachable", async () => {
    routes.set("/", (_req, res) => res.end("plain http"));
    const result = await safeFetch(`https://127.0.0.1:${origin.port}/`, { allow });
    expect(result).toMatchObject({ ok: false, error: "target_unreachable" });
  });

  it("reports a connection reset mid-body as target_unreachable", async () => {
    routes.set("/reset", (req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial", () => req.socket.destroy());
    });
    expect(await safeFetch(origin.url("/reset"), { allow })).toMatchObject({ ok: false, error: "target_unreachable" });
  });
});

describe("safeFetch: fragments", () => {
  it("keeps the request's fragment across a redirect whose Location has none", async () => {
    routes.set("/frag", redirect("/landing"));
    routes.set("/landing", (_req, res) => res.end());
    expect(ok(await safeFetch(origin.url("/frag#section-2"), { allow })).finalUrl).toBe(origin.url("/landing#section-2"));
  });
});
