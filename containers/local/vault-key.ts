import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { type Config, ConfigError } from "../../functions/config/config.ts";
import { createKeyring, type Keyring, parseVaultKey, VAULT_KEY_BYTES, type VaultKey } from "../../functions/vault/crypto.ts";

/**
 * The vault key of a single machine. With OSPREY_VAULT_KEY set it is that; without, it is the
 * file `<OSPREY_DATA_DIR>/vault.key` (32 random bytes, base64), made on first use with mode 0600
 * and refused afterwards when anyone but its owner may read it or it is not a regular file.
 * functions/ never reads it: the composition roots hand the keyring in.
 */

export const VAULT_KEY_FILE = "vault.key";

/** The keyring this process seals and opens vault values with. Creates the key file when it is the key and is missing. */
export function vaultKeyring(config: Pick<Config, "vault" | "dataDir">): Keyring {
  const current = config.vault.key ?? loadOrCreateKeyFile(path.join(config.dataDir, VAULT_KEY_FILE));
  return createKeyring(current, config.vault.previousKeys);
}

const keyFileError = (file: string, problem: string) =>
  new ConfigError(`invalid configuration: the vault key file ${file} ${problem} (or set OSPREY_VAULT_KEY)`);

/** Reads the key file, making it first when there is none. Throws ConfigError naming the file, never its contents. */
export function loadOrCreateKeyFile(file: string): VaultKey {
  try {
    return readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  createKeyFile(file);
  return readKeyFile(file);
}

function readKeyFile(file: string): VaultKey {
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink planted in the data dir is refused, not followed.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw err;
    if (code === "ELOOP") throw keyFileError(file, "is a symbolic link; it must be a regular file");
    throw keyFileError(file, `cannot be read (${code ?? "error"})`);
  }
  try {
    // Checked on the open descriptor, so the file judged is the file read.
    const st = fstatSync(fd);
    if (!st.isFile()) throw keyFileError(file, "is not a regular file");
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw keyFileError(file, `has permissions ${mode.toString(8).padStart(4, "0")}; it must be 0600 (chmod 600 ${file})`);
    }
    const key = parseVaultKey(readFileSync(fd, "utf8"));
    if (!key) throw keyFileError(file, `does not hold a key (${VAULT_KEY_BYTES} bytes as base64 or 64 hex characters)`);
    return key;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a new key to a private temporary file, then links it into place: the link fails when
 * another process made the file first, so two first uses at once agree on one key, and nobody
 * reads a half-written file.
 */
function createKeyFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${randomBytes(VAULT_KEY_BYTES).toString("base64")}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    unlinkSync(tmp);
  }
}
