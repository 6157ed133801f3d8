import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";

/**
 * A stand-in for a third-party HTTP forward proxy (an operator's country proxy or a caller's own),
 * on 127.0.0.1, for the egress proxy's upstream tests. It speaks what such proxies speak: CONNECT,
 * absolute-form requests and absolute-form upgrades, Basic Proxy-Authorization answered with 407,
 * and it resolves names itself from `hosts` (its "country's" DNS). It records what it was asked.
 */

export interface UpstreamRequest {
  method: string;
  /** The CONNECT authority or the absolute-form URL, as received. */
  target: string;
  proxyAuthorization: string | undefined;
}

export interface UpstreamProxyFixture {
  /** `http://127.0.0.1:<port>` (or https://), without credentials. */
  url: string;
  port: number;
  /** `scheme://user:password@127.0.0.1:<port>` with the credentials it expects, percent-encoded. */
  urlWithCredentials(user?: string, password?: string): string;
  requests: UpstreamRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export interface UpstreamProxyOptions {
  /** Credentials it requires; none required without. */
  user?: string;
  password?: string;
  /** Its own name resolution: a name here connects to the address given. */
  hosts?: Record<string, string>;
  /** Serve the proxy over TLS (an https:// upstream). */
  tls?: { key: string; cert: string };
}

export async function startUpstreamProxy(opts: UpstreamProxyOptions = {}): Promise<UpstreamProxyFixture> {
  const requests: UpstreamRequest[] = [];
  const sockets = new Set<Duplex>();
  let connections = 0;
  const expected =
    opts.user === undefined ? null : `Basic ${Buffer.from(`${opts.user}:${opts.password ?? ""}`).toString("base64")}`;
  const resolve = (host: string) => opts.hosts?.[host.replace(/^\[|\]$/g, "")] ?? host.replace(/^\[|\]$/g, "");

  /** Records the request; false (after answering 407) when the credentials are wrong. */
  const admit = (req: http.IncomingMessage): boolean => {
    const proxyAuthorization = req.headers["proxy-authorization"];
    requests.push({ method: req.method ?? "", target: req.url ?? "", proxyAuthorization });
    return expected === null || proxyAuthorization === expected;
  };
  const DENIED =
    'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n';

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!admit(req)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"', "content-length": "0" });
      return void res.end();
    }
    const url = new URL(req.url ?? "");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const out = http.request(
      { host: resolve(url.hostname), port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  };

  /** Opens a TCP connection to the destination and joins it to the client, after `opening` is sent. */
  const bridge = (client: Duplex, host: string, port: number, opening: (server: net.Socket) => void, head: Buffer) => {
    const server = net.connect({ host: resolve(host), port });
    sockets.add(server);
    server.on("error", () => {
      if (client.writable) client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
    });
    server.once("connect", () => {
      opening(server);
      if (head.length > 0) server.write(head);
      client.pipe(server);
      server.pipe(client);
    });
    client.once("close", () => server.destroy());
    server.once("close", () => client.destroy());
  };

  const onConnect = (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on("error", () => client.destroy());
    if (!admit(req)) return void client.end(DENIED);
    const url = new URL(`http://${req.url}/`);
    bridge(client, url.hostname, Number(url.port || 80), () => client.write("HTTP/1.1 200 Connection Established\r\n\r\n"), head);
  };

  const onUpgrade = (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on("error", () => client.destroy());
    if (!admit(req)) return void client.end(DENIED);
    const url = new URL(req.url ?? "");
    const opening = (server: net.Socket) => {
      let text = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if ((req.rawHeaders[i] as string).toLowerCase() !== "proxy-authorization") {
          text += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
        }
      }
      server.write(`${text}\r\n`);
    };
    bridge(client, url.hostname, Number(url.port || 80), opening, head);
  };

  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }) : http.createServer();
  server.on("connection", (s: net.Socket) => {
    connections++;
    sockets.add(s);
    s.on("error", () => s.destroy());
  });
  server.on("request", onRequest);
  server.on("connect", onConnect);
  server.on("upgrade", onUpgrade);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as net.AddressInfo).port;
  const scheme = opts.tls ? "https" : "http";
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    urlWithCredentials: (user = opts.user ?? "", password = opts.password ?? "") =>
      `${scheme}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
