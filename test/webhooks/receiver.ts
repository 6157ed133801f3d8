import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** A throwaway CA and a leaf certificate for 127.0.0.1 and localhost, made with the openssl CLI. */
export interface TestPki {
  caCert: string;
  leafCert: string;
  leafKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

export function makeTestPki(name = "Osprey Test CA"): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), "osprey-webhook-pki-"));
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl(dir, ["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", `/CN=${name}`]);
    openssl(dir, ["req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1"]);
    writeFileSync(
      path.join(dir, "leaf.ext"),
      "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
    );
    openssl(dir, [
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "leaf.crt",
      "-days",
      "2",
      "-extfile",
      "leaf.ext",
    ]);
    const read = (f: string) => readFileSync(path.join(dir, f), "utf8");
    return { caCert: read("ca.crt"), leafCert: read("leaf.crt"), leafKey: read("leaf.key") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver answers to request number `n` (0-based); "hang" never answers. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface Receiver {
  port: number;
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 that records every request and answers as `reply` says. */
export async function startReceiver(pki: TestPki, reply: (n: number, req: ReceivedRequest) => Reply): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = https.createServer({ key: pki.leafKey, cert: pki.leafCert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const received = { method: req.method ?? "", path: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") };
      const n = requests.length;
      requests.push(received);
      const r = reply(n, received);
      if (r === "hang") return;
      res.writeHead(r.status, r.headers ?? {});
      res.end(r.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://127.0.0.1:${port}/hooks/osprey`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
