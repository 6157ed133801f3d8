import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Sealing of the vault's small secrets (a built-in item's values and TOTP seed, an external
 * provider's token) with AES-256-GCM. A sealed value reads
 *
 *     v1.<keyId>.<iv>.<tag>.<ciphertext>        (iv, tag, ciphertext: base64url)
 *
 * where keyId is a fingerprint of the key that sealed it, so a keyring holding the current key and
 * the previous ones (rotation) knows which to open it with. The associated data binds a value to
 * its row (`vault_items:<id>`, `vault_connections:<id>`): a ciphertext copied into another row
 * does not open. Every failure is a VaultSealError whose message names at most the keyId: never
 * the plaintext, never the key.
 */

export const VAULT_KEY_BYTES = 32;
const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{8}$/;
const B64URL = /^[A-Za-z0-9_-]*$/;

/** The bytes of every key, out of reach of anything but this module (not a property: never logged or serialised). */
const material = new WeakMap<VaultKey, Buffer>();

/** A 32-byte vault key. Shows itself (JSON, util.inspect, String) as its keyId only. */
export class VaultKey {
  /** A short fingerprint (8 base64url characters of a SHA-256 over the key), safe to print. */
  readonly id: string;

  constructor(bytes: Uint8Array) {
    if (bytes.length !== VAULT_KEY_BYTES) throw new Error(`a vault key is ${VAULT_KEY_BYTES} bytes`);
    const copy = Buffer.from(bytes);
    material.set(this, copy);
    this.id = createHash("sha256").update("osprey vault key id\0").update(copy).digest("base64url").slice(0, 8);
  }

  toJSON(): string {
    return `[vault key ${this.id}]`;
  }

  toString(): string {
    return this.toJSON();
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toJSON();
  }
}

/**
 * A key as an operator writes it: 32 bytes as base64 (standard or URL alphabet, padding optional)
 * or as 64 hex characters. Null for anything else.
 */
export function parseVaultKey(text: string): VaultKey | null {
  const v = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return new VaultKey(Buffer.from(v, "hex"));
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) return null;
  const bytes = Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.length === VAULT_KEY_BYTES ? new VaultKey(bytes) : null;
}

export type VaultSealFailure = "malformed" | "unknown-key" | "does-not-open";

export class VaultSealError extends Error {
  override name = "VaultSealError";
  readonly reason: VaultSealFailure;
  /** The key the value names, when it names a well-formed one. */
  readonly keyId: string | null;

  constructor(reason: VaultSealFailure, message: string, keyId: string | null = null) {
    super(message);
    this.reason = reason;
    this.keyId = keyId;
  }
}

/** Associated data of a built-in item's secret: the vault_items row it belongs to. */
export const itemSecretAad = (rowId: string): string => `vault_items:${rowId}`;
/** Associated data of an external provider's token: the vault_connections row it belongs to. */
export const connectionTokenAad = (connectionId: string): string => `vault_connections:${connectionId}`;
/**
 * Associated data of a Browser Context Profile's saved state of one domain: the
 * browser_profile_domains row (profile id and domain; JSON, so no domain can forge another pair).
 */
export const profileDomainAad = (profileId: string, domain: string): string =>
  `browser_profile_domains:${JSON.stringify([profileId, domain])}`;

export interface Keyring {
  /** The keyId new values are sealed with. */
  readonly currentKeyId: string;
  /** Seals `plaintext` under the current key, bound to `aad`. */
  seal(plaintext: string, aad: string): string;
  /** Opens a value sealed under any key of the ring with the same `aad`; throws VaultSealError otherwise. */
  open(sealed: string, aad: string): string;
  /** The keyId a sealed value names, or null when it is not a sealed value. */
  keyIdOf(sealed: string): string | null;
}

interface Parts {
  keyId: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

function b64url(part: string, bytes?: number): Buffer | null {
  if (!B64URL.test(part)) return null;
  const buf = Buffer.from(part, "base64url");
  // Only the canonical spelling of the bytes counts, so one value has one text.
  if (buf.toString("base64url") !== part) return null;
  if (bytes !== undefined && buf.length !== bytes) return null;
  return buf;
}

function parts(sealed: string): Parts | null {
  const p = sealed.split(".");
  if (p.length !== 5 || p[0] !== VERSION) return null;
  const [, keyId = "", ivText = "", tagText = "", ctText = ""] = p;
  if (!KEY_ID.test(keyId)) return null;
  const iv = b64url(ivText, IV_BYTES);
  const tag = b64url(tagText, TAG_BYTES);
  const ciphertext = b64url(ctText);
  if (!iv || !tag || !ciphertext) return null;
  return { keyId, iv, tag, ciphertext };
}

/** The header goes into the associated data too, so the version and keyId cannot be swapped either. */
const associated = (keyId: string, aad: string) => Buffer.from(`${VERSION}.${keyId}.${aad}`, "utf8");

function keyBytes(key: VaultKey): Buffer {
  const bytes = material.get(key);
  if (!bytes) throw new Error("not a vault key");
  return bytes;
}

/** A keyring: seals with `current`, opens with `current` or any of `previous`. */
export function createKeyring(current: VaultKey, previous: readonly VaultKey[] = []): Keyring {
  const keys = [current, ...previous.filter((k) => k.id !== current.id)];
  return {
    currentKeyId: current.id,

    seal(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", keyBytes(current), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(associated(current.id, aad));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, current.id, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(
        ".",
      );
    },

    open(sealed, aad) {
      const p = parts(sealed);
      if (!p) throw new VaultSealError("malformed", "vault value is not a sealed value (v1.<keyId>.<iv>.<tag>.<ciphertext>)");
      // Two keys may share a fingerprint (48 bits); each is tried.
      const candidates = keys.filter((k) => k.id === p.keyId);
      if (candidates.length === 0) {
        throw new VaultSealError(
          "unknown-key",
          `vault value was sealed with key ${p.keyId}, which is neither OSPREY_VAULT_KEY nor in OSPREY_VAULT_KEY_PREVIOUS`,
          p.keyId,
        );
      }
      for (const key of candidates) {
        const decipher = createDecipheriv("aes-256-gcm", keyBytes(key), p.iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(associated(p.keyId, aad));
        decipher.setAuthTag(p.tag);
        try {
          return Buffer.concat([decipher.update(p.ciphertext), decipher.final()]).toString("utf8");
        } catch {
          // Authentication failed: the next candidate, or the error below.
        }
      }
      throw new VaultSealError(
        "does-not-open",
        `vault value sealed with key ${p.keyId} does not open: it was altered, or it belongs to another row`,
        p.keyId,
      );
    },

    keyIdOf(sealed) {
      return parts(sealed)?.keyId ?? null;
    },
  };
}
