import dgram from "node:dgram";
import { isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * A tiny authoritative DNS server over UDP for scenarios in a network namespace (netns.ts points
 * the namespace's resolver at 127.0.0.1:53). It answers A, AAAA and ANY from a table the scenario
 * programs, with TTL 0 so nothing is cached:
 * - a name not in the table: NXDOMAIN;
 * - a known name without records of the asked type (or another type): NOERROR with no answers;
 * - `A: [[...], [...]]` (a list of lists): the i-th query of that name and type gets list i, and the
 *   last list from then on (DNS rebinding: first a public address, then 127.0.0.1 or metadata).
 * An EDNS OPT record in the query is read past and not echoed (a plain DNS answer, which every
 * resolver accepts). Answers are never truncated; they are small.
 */

export interface StubRecords {
  A?: string[] | string[][];
  AAAA?: string[] | string[][];
}

export interface StubQuery {
  name: string;
  type: string;
}

export interface StubDns {
  /** Sets (replaces) the records of `name`, and restarts its answer sequences. */
  set(name: string, records: StubRecords): void;
  /** Every question asked so far, in order. */
  queries(): StubQuery[];
  close(): Promise<void>;
}

const TYPE = { A: 1, AAAA: 28, ANY: 255 } as const;
const TYPE_NAMES: Record<number, string> = { 1: "A", 28: "AAAA", 255: "ANY", 65: "HTTPS", 64: "SVCB", 12: "PTR" };
const RCODE_NXDOMAIN = 3;
const RCODE_FORMERR = 1;

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** Normalises `string[] | string[][]` to a sequence of answer lists. */
function sequence(value: string[] | string[][] | undefined, family: 4 | 6): string[][] {
  if (value === undefined) return [];
  const lists = value.length > 0 && Array.isArray(value[0]) ? (value as string[][]) : [value as string[]];
  for (const address of lists.flat()) {
    if (family === 4 ? !isIPv4(address) : !isIPv6(address)) throw new Error(`not an IPv${family} address: ${address}`);
  }
  return lists;
}

interface Entry {
  A: string[][];
  AAAA: string[][];
  asked: { A: number; AAAA: number };
}

interface Question {
  name: string;
  type: number;
  /** Offset just past the question (QTYPE and QCLASS included). */
  end: number;
}

/** Reads the first question of a query; null when the packet is malformed. */
function readQuestion(msg: Buffer): Question | null {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = msg[offset];
    if (length === undefined || length > 63) return null; // compression never appears in a question
    offset++;
    if (length === 0) break;
    if (offset + length > msg.length) return null;
    labels.push(msg.toString("latin1", offset, offset + length));
    offset += length;
  }
  if (offset + 4 > msg.length) return null;
  return { name: canonical(labels.join(".")), type: msg.readUInt16BE(offset), end: offset + 4 };
}

function rdata(type: number, address: string): Buffer {
  return Buffer.from(type === TYPE.A ? ipaddr.IPv4.parse(address).toByteArray() : ipaddr.IPv6.parse(address).toByteArray());
}

function answer(query: Buffer, question: Question, rcode: number, records: { type: number; address: string }[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  const rd = (query[2] ?? 0) & 0x01;
  const opcode = (query[2] ?? 0) & 0x78;
  header[2] = 0x80 | opcode | 0x04 | rd; // QR, opcode, AA, RD
  header[3] = 0x80 | rcode; // RA, RCODE
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(records.length, 6); // ANCOUNT
  const parts = [header, query.subarray(12, question.end)];
  for (const record of records) {
    const data = rdata(record.type, record.address);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    rr.writeUInt16BE(record.type, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(0, 6); // TTL 0: never cached
    rr.writeUInt16BE(data.length, 10);
    parts.push(rr, data);
  }
  return Buffer.concat(parts);
}

export async function startStubDns({ host = "127.0.0.1", port = 53 }: { host?: string; port?: number } = {}): Promise<StubDns> {
  const table = new Map<string, Entry>();
  const asked: StubQuery[] = [];

  /** The next answer list of `name` for `type`, advancing its sequence. */
  const next = (entry: Entry, type: "A" | "AAAA"): string[] => {
    const lists = entry[type];
    if (lists.length === 0) return [];
    const i = Math.min(entry.asked[type], lists.length - 1);
    entry.asked[type]++;
    return lists[i] ?? [];
  };

  const socket = dgram.createSocket(isIPv6(host) ? "udp6" : "udp4");
  socket.on("message", (msg, peer) => {
    const question = readQuestion(msg);
    if (!question) {
      if (msg.length >= 12) {
        const reply = Buffer.from(msg.subarray(0, 12));
        reply[2] = 0x80 | ((msg[2] ?? 0) & 0x79);
        reply[3] = 0x80 | RCODE_FORMERR;
        reply.fill(0, 4, 12);
        socket.send(reply, peer.port, peer.address);
      }
      return;
    }
    asked.push({ name: question.name, type: TYPE_NAMES[question.type] ?? String(question.type) });
    const entry = table.get(question.name);
    let reply: Buffer;
    if (!entry) reply = answer(msg, question, RCODE_NXDOMAIN, []);
    else {
      const records: { type: number; address: string }[] = [];
      if (question.type === TYPE.A || question.type === TYPE.ANY)
        for (const address of next(entry, "A")) records.push({ type: TYPE.A, address });
      if (question.type === TYPE.AAAA || question.type === TYPE.ANY)
        for (const address of next(entry, "AAAA")) records.push({ type: TYPE.AAAA, address });
      reply = answer(msg, question, 0, records);
    }
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => {
      socket.off("error", reject);
      resolve();
    });
  });

  return {
    set(name, records) {
      table.set(canonical(name), {
        A: sequence(records.A, 4),
        AAAA: sequence(records.AAAA, 6),
        asked: { A: 0, AAAA: 0 },
      });
    },
    queries: () => asked.map((q) => ({ ...q })),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
