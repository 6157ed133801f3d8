import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isStraySocketError } from "../../containers/local/process-guard.ts";
import { pinnedLookup } from "../../functions/net/safe-http.ts";
import { tempDir } from "../helpers/process.ts";

/**
 * Issue 15, "one request crashes the process": the pinned lookup answers asynchronously (a
 * synchronous answer let an immediate connect() failure emit 'error' before http attached its
 * listener), and the process guard of `serve`/`worker` survives a stray socket error but still
 * exits on a real bug. The end-to-end case (a server in a network namespace with no routes) is in
 * test/net/netns-*.test.ts.
 */

const GUARD = path.resolve("containers/local/process-guard.ts");

function runScript(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const t = tempDir();
  const file = path.join(t.dir, "script.ts");
  writeFileSync(file, `import { installProcessGuard } from ${JSON.stringify(GUARD)};\n${body}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => {
      t.cleanup();
      resolve({ code, stdout, stderr });
    });
  });
}

const LOGGER = `const logger = { debug() {}, info() {}, warn: (m) => console.error("WARN " + m), error: (m) => console.error("ERROR " + m) };`;

describe("pinnedLookup", () => {
  it("never answers on the caller's turn of the event loop", async () => {
    const lookup = pinnedLookup({ address: "93.184.216.34", family: 4 });
    let answered = false;
    const done = new Promise<unknown[]>((resolve) =>
      lookup("example.com", { all: false }, (...args: unknown[]) => {
        answered = true;
        resolve(args);
      }),
    );
    expect(answered).toBe(false);
    expect(await done).toEqual([null, "93.184.216.34", 4]);
    const all = await new Promise<unknown[]>((resolve) => lookup("example.com", { all: true }, (...args) => resolve(args)));
    expect(all).toEqual([null, [{ address: "93.184.216.34", family: 4 }]]);
  });
});

describe("the process guard", () => {
  it("tells a socket's failure from a program's", () => {
    const sock = Object.assign(new Error("connect ENETUNREACH 8.8.8.8:443"), { code: "ENETUNREACH", syscall: "connect" });
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" });
    expect(isStraySocketError(sock)).toBe(true);
    expect(isStraySocketError(reset)).toBe(true);
    expect(isStraySocketError(new TypeError("x is not a function"))).toBe(false);
    expect(isStraySocketError(Object.assign(new Error("no"), { code: "ENOENT", syscall: "open" }))).toBe(false);
    expect(isStraySocketError("ECONNRESET")).toBe(false);
  });

  it("survives an 'error' event nobody listens to on a socket, and keeps serving", async () => {
    const r = await runScript(`${LOGGER}
import net from "node:net";
installProcessGuard(logger);
// A connection refused with no 'error' listener: without the guard, Node exits here.
const server = net.createServer().listen(0, "127.0.0.1", () => {
  const port = server.address().port;
  server.close(() => {
    net.connect(port, "127.0.0.1");
    setTimeout(() => { console.log("still alive"); }, 200);
  });
});`);
    expect(r.stderr).toMatch(/WARN a connection failed/);
    expect(r.stdout).toContain("still alive");
    expect(r.code).toBe(0);
  });

  it("without the guard the same socket error ends the process (the test can fail)", async () => {
    const r = await runScript(`
import net from "node:net";
const server = net.createServer().listen(0, "127.0.0.1", () => {
  const port = server.address().port;
  server.close(() => {
    net.connect(port, "127.0.0.1");
    setTimeout(() => { console.log("still alive"); }, 200);
  });
});`);
    expect(r.stdout).not.toContain("still alive");
    expect(r.code).not.toBe(0);
  });

  it("does not loop when its own log stream is gone (EPIPE on stderr)", async () => {
    // The parent stops reading the child's stderr at once; the child keeps logging (as a worker
    // whose supervisor went away would). Each failed write must not come back as an uncaught error
    // that is logged again: that loop burned a core in workers left behind by a killed parent.
    const t = tempDir();
    const file = path.join(t.dir, "script.ts");
    writeFileSync(
      file,
      `import { installProcessGuard } from ${JSON.stringify(GUARD)};
import { createLogger } from ${JSON.stringify(path.resolve("functions/lib/logger.ts"))};
const logger = createLogger("info");
const guard = installProcessGuard(logger);
let n = 0;
const timer = setInterval(() => {
  logger.warn("still here", { n: n++ });
  if (n === 20) {
    clearInterval(timer);
    process.stdout.write(JSON.stringify({ survived: guard.survived() }) + "\\n");
  }
}, 25);
`,
    );
    const child = spawn(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr.destroy();
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    t.cleanup();
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({ survived: 0 });
  });

  it("survives an unhandled rejection", async () => {
    const r = await runScript(`${LOGGER}
installProcessGuard(logger);
void Promise.reject(new Error("forgotten"));
setTimeout(() => console.log("still alive"), 100);`);
    expect(r.stderr).toMatch(/ERROR a promise was rejected/);
    expect(r.stdout).toContain("still alive");
  });

  it("still exits on a program error", async () => {
    const r = await runScript(`${LOGGER}
installProcessGuard(logger);
setTimeout(() => { throw new TypeError("a real bug"); }, 10);
setTimeout(() => console.log("still alive"), 300);`);
    expect(r.stderr).toMatch(/ERROR uncaught exception; exiting/);
    expect(r.stdout).not.toContain("still alive");
    expect(r.code).toBe(1);
  });
});
