import { randomBytes } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { profileStore } from "../../functions/profiles/profile.store.ts";
import { createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { browserProfiles } from "../../schema/tables/index.ts";
import { migratedDataDir } from "../helpers/data-dir.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { type Env, type ExitResult, type RunningServer, runCleanups, runCli, startServer } from "../helpers/process.ts";

/** A direct PGlite-backed command opens the database first: a few seconds each, tens on a busy machine. */
const SLOW = 300_000;

/**
 * `osprey vault ...` as a real process: values from standard input, list / enable / disable /
 * remove, usage errors, key rotation with rekey, and encryption at rest (a canary password and TOTP
 * seed appear nowhere in the database, the data directory or the command's output).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(() => runCleanups(cleanups), 120_000);

function freshDataDir(): string {
  const t = migratedDataDir("osprey-vault-cli-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const canarySeed = () => Array.from(randomBytes(32), (b) => B32[b % 32]).join("");
const canaryPassword = () => `canary-pw-${randomBytes(12).toString("hex")}`;

interface Cli {
  run(args: string[], input?: string): Promise<ExitResult>;
  ok(args: string[], input?: string): Promise<string>;
  fails(args: string[], code: number, message: RegExp, input?: string): Promise<ExitResult>;
}

function cli(env: () => Env, outputs: ExitResult[] = []): Cli {
  const run = async (args: string[], input?: string) => {
    const r = await runCli(["vault", ...args], env(), { timeoutMs: 120_000, ...(input === undefined ? {} : { input }) });
    outputs.push(r);
    return r;
  };
  return {
    run,
    async ok(args, input) {
      const r = await run(args, input);
      expect(r.code, `osprey vault ${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe("");
      return r.stdout;
    },
    async fails(args, code, message, input) {
      const r = await run(args, input);
      expect(r.code, `osprey vault ${args.join(" ")}: ${r.stderr}`).toBe(code);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^osprey: /);
      expect(r.stderr).toMatch(message);
      return r;
    },
  };
}

async function newAccount(env: Env): Promise<string> {
  const r = await runCli(["keys", "create", "--json"], env, { timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).account_id as string;
}

/** Every row of every table (all schemas but the system ones), each as its text form. */
async function dumpAllRows(db: Db): Promise<string> {
  const rows = async <T>(q: SQL) => ((await db.execute(q)) as unknown as { rows: T[] }).rows;
  const tables = await rows<{ s: string; t: string }>(
    sql`select table_schema as s, table_name as t from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  expect(tables.map((t) => t.t)).toEqual(expect.arrayContaining(["vault_items", "vault_connections", "accounts"]));
  const parts: string[] = [];
  for (const { s, t } of tables) {
    const q = sql.raw(`select x::text as row from "${s.replace(/"/g, '""')}"."${t.replace(/"/g, '""')}" x`);
    for (const r of await rows<{ row: string }>(q)) parts.push(r.row);
  }
  return parts.join("\n");
}

/** Every file under `dir`, as bytes. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, bytes: readFileSync(file) });
  }
  return out;
}

/** The needles a secret could be stored as: its text (UTF-8 and UTF-16), lower-cased. */
const needles = (secret: string) => [secret, secret.toLowerCase()].flatMap((s) => [Buffer.from(s), Buffer.from(s, "utf16le")]);

interface Backend {
  name: string;
  env(): Promise<Env>;
  /** Opens the backend's database after the CLI has exited (stopping the server that holds it, if any). */
  open(env: Env): Promise<{ db: Db; close(): Promise<void> }>;
}
/** PGlite, each command run by the CLI process itself (it opens the data dir). */
const pglite: Backend = {
  name: "pglite",
  env: async () => ({ OSPREY_DATA_DIR: freshDataDir() }),
  async open(env) {
    const d = await openDatabase({ driver: "pglite", dataDir: path.join(env.OSPREY_DATA_DIR ?? "", "pglite") });
    return { db: d.db, close: () => d.close() };
  },
};
/**
 * PGlite with `osprey serve` running on the data dir: every command is forwarded over the admin
 * socket (values on the CLI's stdin included) and run by the server, seconds faster than opening
 * the data dir per command. test/cli/admin-socket.test.ts checks that a forwarded command prints
 * and exits byte for byte as the direct one does.
 */
const servers = new Map<string, RunningServer>();
const pgliteServer: Backend = {
  name: "pglite beside a running server",
  async env() {
    const env = { OSPREY_DATA_DIR: freshDataDir() };
    const server = await startServer(
      { ...env, PORT: "0", CHROME_PATH: "/nonexistent/chromium", OSPREY_BROWSER_SESSIONS: "off" },
      { timeoutMs: 120_000 },
    );
    servers.set(env.OSPREY_DATA_DIR, server);
    cleanups.push(() => stopServer(env.OSPREY_DATA_DIR));
    return env;
  },
  async open(env) {
    await stopServer(env.OSPREY_DATA_DIR ?? "");
    return pglite.open(env);
  },
};
async function stopServer(dataDir: string): Promise<void> {
  const server = servers.get(dataDir);
  servers.delete(dataDir);
  if (server) expect(await server.stop("SIGTERM")).toBe(0);
}
const postgres: Backend = {
  name: "postgres",
  async env() {
    const db = await createPostgresDatabase({ fromTemplate: true });
    cleanups.push(db.drop);
    return { OSPREY_DATA_DIR: freshDataDir(), DATABASE_URL: db.url };
  },
  async open(env) {
    const d = await openDatabase({ driver: "pg", url: env.DATABASE_URL ?? "" });
    return { db: d.db, close: () => d.close() };
  },
};
const backends = TEST_DATABASE_URL ? [pgliteServer, postgres] : [pgliteServer];

describe.each(backends)("osprey vault ($name)", (backend) => {
  it(
    "encryption at rest: a canary password and TOTP seed given on stdin are nowhere in the database, the data dir or the output",
    async () => {
      const env = await backend.env();
      const outputs: ExitResult[] = [];
      const c = cli(() => env, outputs);
      const account = await newAccount(env);
      const password = canaryPassword();
      const seed = canarySeed();
      const username = `canary-user-${randomBytes(6).toString("hex")}`;
      const added = JSON.parse(
        await c.ok(
          [
            "add",
            account,
            "--vault",
            "Personal",
            "--label",
            "Canary login",
            "--domains",
            "login.example.com,https://Example.COM/path",
            "--field",
            `username=${username}`,
            "--field",
            "password=-",
            "--totp",
            "-",
            "--json",
          ],
          `${password}\n${seed}\n`,
        ),
      );
      expect(added).toEqual({
        itemId: expect.stringMatching(/^cred:vc_[0-9a-z]{26}:Personal:it_[0-9a-z]{26}$/),
        accountId: account,
        connectionId: expect.stringMatching(/^vc_/),
        label: "Canary login",
        vaultName: "Personal",
        domains: ["login.example.com", "example.com"],
        fieldMetadata: [
          { fieldId: "username", label: "username", type: "STRING" },
          { fieldId: "password", label: "password", type: "CONCEALED" },
          { fieldId: "totp", label: "one-time code", type: "OTP" },
        ],
        hasTotp: true,
        enabled: true,
      });
      // A second item, this time from an otpauth URI on stdin, the password on stdin as well.
      const uri = `otpauth://totp/Example:alice?secret=${seed}&issuer=Example&algorithm=SHA512&digits=8`;
      const second = await c.ok(
        [
          "add",
          account,
          "--vault",
          "Work",
          "--label",
          "Second",
          "--domains",
          "example.org",
          "--totp",
          "-",
          "--field",
          "password=-",
        ],
        `${uri}\r\n${password}\r\n`,
      );
      expect(second).toMatch(/^cred:vc_\w+:Work:it_\w+\n$/);
      await c.ok(["list", "--json"]);
      await c.ok(["list"]);

      const keyFile = path.join(env.OSPREY_DATA_DIR ?? "", "vault.key");
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);

      // Nothing the commands printed holds a secret (the username is no secret, and is not printed either).
      for (const o of outputs) {
        for (const secret of [password, seed, username]) {
          expect(o.stdout).not.toContain(secret);
          expect(o.stderr).not.toContain(secret);
        }
      }
      // The database, every row of every table as text.
      const opened = await backend.open(env);
      let dump: string;
      try {
        dump = await dumpAllRows(opened.db);
      } finally {
        await opened.close();
      }
      expect(dump).toContain("Canary login"); // the dump does see the items
      expect(dump).toContain("v1.");
      for (const secret of [password, seed, username]) {
        expect(dump).not.toContain(secret);
        expect(dump.toLowerCase()).not.toContain(secret.toLowerCase());
      }
      // Every byte of every file in the data dir (PGlite's files, the key file, anything else).
      const files = filesUnder(env.OSPREY_DATA_DIR ?? "");
      expect(files.map((f) => path.basename(f.file))).toContain("vault.key");
      if (backend === pgliteServer) {
        // The search does see what is stored: the label is in PGlite's files.
        expect(files.some((f) => f.bytes.includes(Buffer.from("Canary login")))).toBe(true);
      }
      for (const { file, bytes } of files) {
        for (const secret of [password, seed]) {
          for (const needle of needles(secret)) expect(bytes.includes(needle), `${file} holds a secret`).toBe(false);
        }
      }
    },
    SLOW,
  );

  it(
    "list, disable, enable and remove an item; list never shows a value",
    async () => {
      const env = await backend.env();
      const c = cli(() => env);
      const account = await newAccount(env);
      const other = await newAccount(env);
      const password = canaryPassword();
      const id = (
        await c.ok(
          ["add", account, "--vault", "V", "--label", "Mail", "--domains", "mail.example.com", "--field", "password=-"],
          `${password}\n`,
        )
      ).trim();
      await c.ok(["add", other, "--vault", "V", "--label", "Another", "--domains", "a.example", "--field", "pin=1234"]);

      const listed = JSON.parse(await c.ok(["list", account, "--json"]));
      expect(listed).toEqual([expect.objectContaining({ itemId: id, label: "Mail", enabled: true, hasTotp: false })]);
      expect(JSON.parse(await c.ok(["list", "--json"])).map((i: { label: string }) => i.label)).toEqual(["Mail", "Another"]);
      const table = await c.ok(["list"]);
      expect(table).toMatch(/^ITEM ID\s+ACCOUNT\s+LABEL\s+VAULT\s+DOMAINS\s+FIELDS\s+TOTP\s+STATE\n/);
      expect(table).toContain(`${id}  ${account}`);
      expect(table).not.toContain(password);
      expect(table).not.toContain("1234");

      expect(await c.ok(["disable", id])).toBe(`Disabled ${id}.\n`);
      expect(await c.ok(["list", account])).toMatch(/ {2}disabled\n$/);
      expect(await c.ok(["enable", id])).toBe(`Enabled ${id}.\n`);
      expect(await c.ok(["remove", id])).toBe(`Removed ${id}.\n`);
      expect(JSON.parse(await c.ok(["list", account, "--json"]))).toEqual([]);
      await c.fails(["remove", id], 2, /no vault item cred:/);
    },
    SLOW,
  );

  it.skipIf(backend !== pgliteServer)(
    "usage errors exit 2 and name what is wrong, never a value; an unknown account exits 1",
    async () => {
      const env = await backend.env();
      const c = cli(() => env);
      const secret = canaryPassword();
      // Every argument is checked before the account is looked up (test/vault/vault-command.test.ts has them all).
      const base = ["add", "acct_missing", "--vault", "V", "--label", "L"];
      await c.fails(
        [...base, "--domains", "good.com,bad_domain", "--field", "password=x"],
        2,
        /--domains: "bad_domain" is not a domain/,
      );
      await c.fails([...base, "--domains", "a.com", "--field", "password=x", "--bogus"], 2, /Unknown option '--bogus'/);
      const r = await c.fails(
        [...base, "--domains", "a.com", "--field", "password=-", "--totp", "-"],
        2,
        /standard input ended before the value for --totp/,
        `${secret}\n`,
      );
      expect(r.stderr).not.toContain(secret);
      await c.fails(["remove", "not-an-item-id"], 2, /"not-an-item-id" is not an itemId/);
      await c.fails([...base, "--domains", "a.com", "--field", "p=x"], 1, /No account with id acct_missing/);
    },
    SLOW,
  );

  // Direct (no server): rekey does not run through a server, and the keys come from each command's environment.
  it.skipIf(backend !== pgliteServer)(
    "key rotation: the old key in PREVIOUS still opens; rekey moves everything to the new key",
    async () => {
      const dataDir = freshDataDir();
      const k1 = randomBytes(32);
      const k2 = randomBytes(32);
      const id1 = new VaultKey(k1).id;
      const id2 = new VaultKey(k2).id;
      const withKeys = (key: Buffer, previous?: Buffer): Env => ({
        OSPREY_DATA_DIR: dataDir,
        OSPREY_VAULT_KEY: key.toString("base64"),
        ...(previous ? { OSPREY_VAULT_KEY_PREVIOUS: previous.toString("hex") } : {}),
      });
      const account = await newAccount(withKeys(k1));
      const c1 = cli(() => withKeys(k1));
      for (const label of ["One", "Two"]) {
        await c1.ok(["add", account, "--vault", "V", "--label", label, "--domains", "a.com", "--field", "password=-"], "pw\n");
      }
      // No key file: OSPREY_VAULT_KEY is the key.
      expect(readdirSync(dataDir)).not.toContain("vault.key");
      // A Browser Context Profile's stored state, sealed with the same key.
      const seeded = await pglite.open({ OSPREY_DATA_DIR: dataDir });
      try {
        await seeded.db.insert(browserProfiles).values({ id: "prof_rot", accountId: account, name: "P", fingerprintSeed: "s" });
        const cookie = { name: "sid", value: "v", domain: "a.com", path: "/", expires: -1, httpOnly: true, secure: false };
        const saved = await profileStore({ db: seeded.db, keyring: createKeyring(new VaultKey(k1)), logger: silentLogger }).save(
          account,
          "prof_rot",
          {
            writes: [{ domain: "a.com", state: { domain: "a.com", cookies: [cookie], localStorage: [] } }],
            accessed: [],
            writtenBy: "run_x",
            at: new Date(),
          },
        );
        expect(saved).toBe(true);
      } finally {
        await seeded.close();
      }

      // The new key alone: nothing opens, rekey says which key is missing and changes nothing.
      const r = await cli(() => withKeys(k2)).run(["rekey"]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        `Re-sealed 0 item secrets, 0 connection tokens and 0 profile domain states under key ${id2}; 0 already were.\n`,
      );
      expect(r.stderr).toContain("3 values did not open and were left as they were");
      expect(r.stderr).toContain(`sealed with key ${id1}, which is neither OSPREY_VAULT_KEY nor in OSPREY_VAULT_KEY_PREVIOUS`);

      const rotated = cli(() => withKeys(k2, k1));
      expect(await rotated.ok(["rekey"])).toBe(
        `Re-sealed 2 item secrets, 0 connection tokens and 1 profile domain state under key ${id2}; 0 already were.\n`,
      );
      expect(await cli(() => withKeys(k2)).ok(["rekey"])).toBe(
        `Re-sealed 0 item secrets, 0 connection tokens and 0 profile domain states under key ${id2}; 3 already were.\n`,
      );
      const opened = await pglite.open({ OSPREY_DATA_DIR: dataDir });
      try {
        const rows = (
          (await opened.db.execute(sql`select secret_ciphertext as s from vault_items`)) as unknown as { rows: { s: string }[] }
        ).rows;
        expect(rows.map((x) => x.s.split(".")[1])).toEqual([id2, id2]);
      } finally {
        await opened.close();
      }
    },
    SLOW,
  );

  // Direct (no server): the command itself reads the key file.
  it.skipIf(backend !== pgliteServer)(
    "a key file anyone else may read stops the command that needs it, naming the file",
    async () => {
      const env = await pglite.env();
      const c = cli(() => env);
      const account = await newAccount(env);
      await c.ok(["add", account, "--vault", "V", "--label", "L", "--domains", "a.com", "--field", "password=x"]);
      const keyFile = path.join(env.OSPREY_DATA_DIR ?? "", "vault.key");
      chmodSync(keyFile, 0o644);
      await c.fails(
        ["add", account, "--vault", "V", "--label", "M", "--domains", "a.com", "--field", "password=y"],
        1,
        new RegExp(`the vault key file ${keyFile.replace(/[.]/g, "\\.")} has permissions 0644; it must be 0600`),
      );
      await c.fails(["rekey"], 1, /has permissions 0644/);
      // Listing reads no secret, so it needs no key.
      expect(await c.ok(["list", account])).toContain("L");
    },
    SLOW,
  );
});
