import { execFileSync } from "node:child_process";
import dgram from "node:dgram";
import { lookup, Resolver } from "node:dns/promises";
import { createServer } from "node:http";
import net from "node:net";
import { CANARY_SECRET, startCanaries } from "../../helpers/netns/canary.ts";
import { PUBLIC_ORIGIN, UNROUTABLE } from "../../helpers/netns/netns.ts";
import { attempt, report } from "../../helpers/netns/scenario.ts";
import { startStubDns } from "../../helpers/netns/stub-dns.ts";

/**
 * The harness checking itself, inside the namespace (test/net/netns-harness.test.ts asserts on the
 * report): the system resolver asks the stub and only the stub, answers can change between
 * lookups, canaries on the metadata addresses count connections, public stand-in origins answer,
 * and nothing outside the namespace can be reached.
 */

const dns = await startStubDns();
dns.set("static.test.example", { A: [PUBLIC_ORIGIN.v4] });
dns.set("both.test.example", { A: [PUBLIC_ORIGIN.v4], AAAA: [PUBLIC_ORIGIN.v6] });
dns.set("v6only.test.example", { AAAA: [UNROUTABLE.v6] });
dns.set("noroute.test.example", { A: [UNROUTABLE.v4] });
dns.set("rebind.test.example", { A: [[PUBLIC_ORIGIN.v4], ["169.254.169.254"]] });
dns.set("cares.test.example", { A: ["10.0.0.1"] });

const canaries = await startCanaries([
  { host: "169.254.169.254", port: 80 },
  { host: "fd00:ec2::254", port: 80 },
  { host: "10.0.0.1", port: 53, udp: true },
]);
const origin = createServer((_req, res) => res.end("public origin")).listen(80, PUBLIC_ORIGIN.v4);
await new Promise((resolve) => origin.once("listening", resolve));

const all = (name: string) => attempt(() => lookup(name, { all: true, order: "verbatim" }));
const text = (url: string) => attempt(async () => (await fetch(url, { signal: AbortSignal.timeout(5000) })).text());
const connect = (host: string, port: number) =>
  attempt(
    () =>
      new Promise<void>((resolve, reject) => {
        const socket = net.connect({ host, port, timeout: 3000 });
        socket.once("connect", () => {
          socket.destroy();
          resolve();
        });
        socket.once("timeout", () => {
          socket.destroy();
          reject(Object.assign(new Error("timed out"), { code: "TIMEOUT" }));
        });
        socket.once("error", reject);
      }),
  );
/** Sends one datagram and waits for the answer (canaries answer every datagram). */
const udpExchange = (host: string, port: number) =>
  attempt(
    () =>
      new Promise<string>((resolve, reject) => {
        const socket = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4");
        const done = (err: Error | null, text = "") => {
          clearTimeout(timer);
          socket.close();
          if (err) reject(err);
          else resolve(text);
        };
        const timer = setTimeout(() => done(Object.assign(new Error("no answer"), { code: "TIMEOUT" })), 3000);
        socket.once("message", (msg) => done(null, msg.toString("utf8")));
        socket.send("ping", port, host, (err) => {
          if (err) done(err);
        });
      }),
  );

const lookups = {
  static: await all("static.test.example"),
  both: await all("both.test.example"),
  v6only: await all("v6only.test.example"),
  v6onlyAsV4: await attempt(() => lookup("v6only.test.example", { family: 4 })),
  unknown: await all("unknown.test.example"),
  localhost: await all("localhost"),
  rebind: [await all("rebind.test.example"), await all("rebind.test.example"), await all("rebind.test.example")],
  caresResolve4: await attempt(() => new Resolver().resolve4("cares.test.example")),
};

const metadata = await text("http://169.254.169.254/latest/meta-data/iam/");
const metadataV6 = await text("http://[fd00:ec2::254]/latest/meta-data/");
const udpCanary = await udpExchange("10.0.0.1", 53);
const publicOrigin = await text("http://static.test.example/");

const unroutable = {
  fetchV4: await text(`http://${UNROUTABLE.v4}/`),
  fetchV6: await text(`http://[${UNROUTABLE.v6}]/`),
  fetchName: await text("https://noroute.test.example/"),
  outsideNameserver: await udpExchange(process.env.OUTSIDE_NAMESERVER ?? "10.255.255.53", 53),
  outsideNameserverTcp: await connect(process.env.OUTSIDE_NAMESERVER ?? "10.255.255.53", 53),
  // The test listens on the host's 127.0.0.1: the namespace has a loopback of its own.
  outsideLoopback: await connect("127.0.0.1", Number(process.env.OUTSIDE_PORT)),
};

const routes = {
  v4: execFileSync("ip", ["-4", "route", "show", "table", "main"], { encoding: "utf8" }).trim(),
  v6Default: execFileSync("ip", ["-6", "route", "show", "default"], { encoding: "utf8" }).trim(),
  links: execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split(":")[1]?.trim()),
};

report({
  lookups,
  queries: dns.queries(),
  metadata,
  metadataV6,
  udpCanary,
  publicOrigin,
  unroutable,
  routes,
  canaries: canaries.hits(),
  canaryTotal: canaries.total(),
  secret: CANARY_SECRET,
});
await canaries.close();
await dns.close();
origin.close();
