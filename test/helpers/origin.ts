import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Origin {
  url: string;
  port: number;
  /** Requests seen, by path (query included). */
  hits: Map<string, number>;
  /** Headers of the last request to each path. */
  lastHeaders: Map<string, IncomingMessage["headers"]>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** A real HTTP origin on 127.0.0.1 for tests: routes by exact path (query ignored for routing). */
export async function startOrigin(routes: Record<string, Handler> = {}): Promise<Origin> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const lastHeaders = new Map<string, IncomingMessage["headers"]>();
  const server: Server = createServer((req, res) => {
    const full = req.url ?? "/";
    hits.set(full, (hits.get(full) ?? 0) + 1);
    lastHeaders.set(full, req.headers);
    const handler = table.get(full.split("?")[0] ?? "/");
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<html><body><h1>Not found</h1></body></html>");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    lastHeaders,
    route: (path, handler) => table.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string, headers: Record<string, string> = {}, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
    res.end(body);
  };

export const article = (title: string, paragraphs: string[]) =>
  `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="About ${title}"></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join("\n")}
</article></main><footer>Copyright 2026 Example Ltd. All rights reserved.</footer></body></html>`;

/** Three sentences of ordinary prose about ospreys: main content the extractor keeps, for the fetch tests' pages. */
export const OSPREY_PARAGRAPHS: readonly string[] = [
  "Ospreys are large raptors that feed almost exclusively on fish, which they catch by diving feet first into the water.",
  "They nest on tall structures near water, returning to the same nest year after year and adding material each season.",
  "Their populations recovered strongly after the pesticide DDT was banned, and they now breed on every continent except Antarctica.",
];
