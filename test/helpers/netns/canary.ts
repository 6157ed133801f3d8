import dgram from "node:dgram";
import { isIPv6, type Server, type Socket, createServer as tcpServer } from "node:net";

/**
 * Canary listeners for scenarios in a network namespace: one on each address and port a request
 * must never reach (metadata, private ranges, loopback services). Each counts every TCP connection
 * (or UDP datagram) and keeps the first bytes and the peer's address, and answers with
 * CANARY_SECRET (as an HTTP response when the first bytes look like one), so a test can also assert
 * that the secret never appears in anything the service returned.
 */

export const CANARY_SECRET = "CANARY-SECRET-7f3c9a";

export interface CanarySpec {
  host: string;
  port: number;
  udp?: boolean;
}

export interface CanaryHit {
  host: string;
  port: number;
  proto: "tcp" | "udp";
  count: number;
  /** The first bytes (up to 256, latin1) of the first connection or datagram; "" when none. */
  firstBytes: string;
  /** Every peer, as address:port, in order. */
  remotes: string[];
}

export interface Canaries {
  /** One entry per listener, hit or not. */
  hits(): CanaryHit[];
  /** Connections and datagrams over all listeners. */
  total(): number;
  close(): Promise<void>;
}

const FIRST_BYTES = 256;
const HTTP_REQUEST = /^[A-Z]{3,10} \S+ HTTP\/1\.[01]\r\n/;

function httpAnswer(host: string, port: number): string {
  const body = `${CANARY_SECRET} ${host}:${port}\n`;
  return `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

const peer = (address: string | undefined, port: number | undefined) =>
  `${address && isIPv6(address) ? `[${address}]` : address}:${port}`;

export async function startCanaries(list: CanarySpec[]): Promise<Canaries> {
  const hits: CanaryHit[] = [];
  const closers: Array<() => Promise<void>> = [];
  const sockets = new Set<Socket>();
  try {
    for (const spec of list) {
      const tcp: CanaryHit = { host: spec.host, port: spec.port, proto: "tcp", count: 0, firstBytes: "", remotes: [] };
      hits.push(tcp);
      const server: Server = tcpServer((socket) => {
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
        socket.on("error", () => {});
        tcp.count++;
        tcp.remotes.push(peer(socket.remoteAddress, socket.remotePort));
        const first = tcp.count === 1;
        socket.once("data", (chunk: Buffer) => {
          const text = chunk.subarray(0, FIRST_BYTES).toString("latin1");
          if (first) tcp.firstBytes = text;
          socket.end(HTTP_REQUEST.test(text) ? httpAnswer(spec.host, spec.port) : `${CANARY_SECRET}\n`);
        });
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(spec.port, spec.host, () => resolve());
      });
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      if (!spec.udp) continue;
      const udp: CanaryHit = { host: spec.host, port: spec.port, proto: "udp", count: 0, firstBytes: "", remotes: [] };
      hits.push(udp);
      const socket = dgram.createSocket(isIPv6(spec.host) ? "udp6" : "udp4");
      socket.on("message", (msg, rinfo) => {
        udp.count++;
        udp.remotes.push(peer(rinfo.address, rinfo.port));
        if (udp.count === 1) udp.firstBytes = msg.subarray(0, FIRST_BYTES).toString("latin1");
        socket.send(`${CANARY_SECRET}\n`, rinfo.port, rinfo.address);
      });
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.bind(spec.port, spec.host, () => resolve());
      });
      closers.push(() => new Promise<void>((resolve) => socket.close(() => resolve())));
    }
  } catch (err) {
    await Promise.all(closers.map((close) => close()));
    throw err;
  }
  return {
    hits: () => hits.map((h) => ({ ...h, remotes: [...h.remotes] })),
    total: () => hits.reduce((sum, h) => sum + h.count, 0),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(closers.map((close) => close()));
    },
  };
}
