import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateKeyFile, VAULT_KEY_FILE, vaultKeyring } from "../../containers/local/vault-key.ts";
import { ConfigError, parseConfig } from "../../functions/config/config.ts";
import { createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { REPO_ROOT, tempDir } from "../helpers/process.ts";

const execFileP = promisify(execFile);

/** The single-machine vault key: `<OSPREY_DATA_DIR>/vault.key`, or OSPREY_VAULT_KEY when set. */

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups) c();
});
function dataDir(): string {
  const t = tempDir("osprey-vault-key-");
  cleanups.push(t.cleanup);
  return t.dir;
}
const config = (env: Record<string, string>, dir: string) => parseConfig({ OSPREY_DATA_DIR: dir, ...env }, "/");

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("the vault key file", () => {
  it("is created on first use with mode 0600 (32 random bytes, base64), and read back after", () => {
    const dir = path.join(dataDir(), "not-yet");
    const file = path.join(dir, VAULT_KEY_FILE);
    expect(existsSync(file)).toBe(false);
    const ring = vaultKeyring(config({}, dir));
    const st = statSync(file);
    expect(st.isFile()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(Buffer.from(text.trim(), "base64")).toHaveLength(32);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // The next process reads the same key: what one sealed the other opens.
    const again = vaultKeyring(config({}, dir));
    expect(again.currentKeyId).toBe(ring.currentKeyId);
    expect(again.open(ring.seal("s", "a"), "a")).toBe("s");
  });

  it("first uses in several processes at once agree on one key", async () => {
    const file = path.join(dataDir(), VAULT_KEY_FILE);
    const module = path.join(REPO_ROOT, "containers/local/vault-key.ts");
    const script = `const m = await import(${JSON.stringify(module)}); process.stdout.write(m.loadOrCreateKeyFile(${JSON.stringify(file)}).id);`;
    const ids = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const { stdout } = await execFileP(process.execPath, [
          "--disable-warning=ExperimentalWarning",
          "--input-type=module",
          "-e",
          script,
        ]);
        return stdout;
      }),
    );
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(new Set(ids).size).toBe(1);
    expect(loadOrCreateKeyFile(file).id).toBe(ids[0]);
  });

  it("is refused when group or others may read it, naming the file and the fix, never its contents", () => {
    const dir = dataDir();
    const file = path.join(dir, VAULT_KEY_FILE);
    const text = randomBytes(32).toString("base64");
    writeFileSync(file, text, { mode: 0o644 });
    chmodSync(file, 0o644);
    const err = configError(() => vaultKeyring(config({}, dir)));
    expect(err.message).toBe(
      `invalid configuration: the vault key file ${file} has permissions 0644; it must be 0600 (chmod 600 ${file}) (or set OSPREY_VAULT_KEY)`,
    );
    expect(err.message).not.toContain(text);
    chmodSync(file, 0o640);
    expect(configError(() => loadOrCreateKeyFile(file)).message).toMatch(/has permissions 0640/);
    chmodSync(file, 0o600);
    expect(loadOrCreateKeyFile(file).id).toBe(new VaultKey(Buffer.from(text, "base64")).id);
    chmodSync(file, 0o400);
    expect(loadOrCreateKeyFile(file).id).toBe(new VaultKey(Buffer.from(text, "base64")).id);
  });

  it("is refused when it is not a regular file: a symlink, a directory", () => {
    const dir = dataDir();
    const target = path.join(dir, "elsewhere.key");
    writeFileSync(target, randomBytes(32).toString("base64"), { mode: 0o600 });
    const link = path.join(dir, "link", VAULT_KEY_FILE);
    mkdirSync(path.dirname(link));
    symlinkSync(target, link);
    expect(configError(() => loadOrCreateKeyFile(link)).message).toMatch(/is a symbolic link; it must be a regular file/);
    const asDir = path.join(dir, "d", VAULT_KEY_FILE);
    mkdirSync(asDir, { recursive: true, mode: 0o700 });
    expect(configError(() => loadOrCreateKeyFile(asDir)).message).toMatch(/is not a regular file/);
  });

  it("is refused when it holds no key", () => {
    const file = path.join(dataDir(), VAULT_KEY_FILE);
    writeFileSync(file, "not a key at all\n", { mode: 0o600 });
    const err = configError(() => loadOrCreateKeyFile(file));
    expect(err.message).toMatch(/does not hold a key \(32 bytes as base64 or 64 hex characters\)/);
    expect(err.message).not.toContain("not a key at all");
  });

  it("is not used (nor made) when OSPREY_VAULT_KEY is set; OSPREY_VAULT_KEY_PREVIOUS joins either", () => {
    const dir = dataDir();
    const current = randomBytes(32);
    const old = randomBytes(32);
    const ring = vaultKeyring(
      config({ OSPREY_VAULT_KEY: current.toString("hex"), OSPREY_VAULT_KEY_PREVIOUS: old.toString("base64") }, dir),
    );
    expect(existsSync(path.join(dir, VAULT_KEY_FILE))).toBe(false);
    expect(ring.currentKeyId).toBe(new VaultKey(current).id);
    const oldRing = createKeyring(new VaultKey(old));
    expect(ring.open(oldRing.seal("from before", "a"), "a")).toBe("from before");
    // With the key file as the current key, the previous keys still open.
    const fileRing = vaultKeyring(config({ OSPREY_VAULT_KEY_PREVIOUS: old.toString("hex") }, dir));
    expect(existsSync(path.join(dir, VAULT_KEY_FILE))).toBe(true);
    expect(fileRing.open(oldRing.seal("from before", "a"), "a")).toBe("from before");
  });
});
