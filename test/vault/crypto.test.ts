import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  connectionTokenAad,
  createKeyring,
  itemSecretAad,
  parseVaultKey,
  VaultKey,
  VaultSealError,
} from "../../functions/vault/crypto.ts";

const newKey = () => new VaultKey(randomBytes(32));
const SECRET = "correct horse battery staple ✓";

function sealError(fn: () => unknown): VaultSealError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VaultSealError);
    return err as VaultSealError;
  }
  throw new Error("expected a VaultSealError");
}

/** Replaces one character of a base64url part with another, so the text still parses. */
function flip(sealed: string, part: number): string {
  const parts = sealed.split(".");
  const p = parts[part] ?? "";
  const bytes = Buffer.from(p, "base64url");
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[part] = bytes.toString("base64url");
  return parts.join(".");
}

describe("vault sealing (AES-256-GCM)", () => {
  it("round-trips, with a fresh IV each time, in the v1.<keyId>.<iv>.<tag>.<ciphertext> format", () => {
    const key = newKey();
    const ring = createKeyring(key);
    const a = ring.seal(SECRET, itemSecretAad("vi_1"));
    const b = ring.seal(SECRET, itemSecretAad("vi_1"));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a.split(".")[1]).toBe(key.id);
    expect(ring.keyIdOf(a)).toBe(key.id);
    expect(ring.open(a, itemSecretAad("vi_1"))).toBe(SECRET);
    expect(ring.open(b, itemSecretAad("vi_1"))).toBe(SECRET);
    expect(ring.open(ring.seal("", "x"), "x")).toBe("");
    expect(a).not.toContain(SECRET);
    expect(Buffer.from(a.split(".")[4] ?? "", "base64url").toString("utf8")).not.toContain("horse");
  });

  it("fails closed on a wrong key, naming neither the value nor the key", () => {
    const key = newKey();
    const sealed = createKeyring(key).seal(SECRET, "vault_items:vi_1");
    const other = newKey();
    const err = sealError(() => createKeyring(other).open(sealed, "vault_items:vi_1"));
    expect(err.reason).toBe("unknown-key");
    expect(err.keyId).toBe(key.id);
    expect(err.message).toMatch(/sealed with key .{8}, which is neither OSPREY_VAULT_KEY nor in OSPREY_VAULT_KEY_PREVIOUS/);
    expect(err.message).not.toContain(SECRET);
  });

  it("fails closed on every tampered part: IV, tag, ciphertext, keyId, version, shape", () => {
    const ring = createKeyring(newKey());
    const aad = itemSecretAad("vi_1");
    const sealed = ring.seal(SECRET, aad);
    for (const part of [2, 3, 4]) {
      const err = sealError(() => ring.open(flip(sealed, part), aad));
      expect(err.reason, `part ${part}`).toBe("does-not-open");
      expect(err.message).toMatch(/does not open: it was altered, or it belongs to another row/);
    }
    const [, , iv, tag, ct] = sealed.split(".");
    expect(sealError(() => ring.open(["v1", "AAAAAAAA", iv, tag, ct].join("."), aad)).reason).toBe("unknown-key");
    for (const bad of [
      ["v2", ring.currentKeyId, iv, tag, ct].join("."),
      sealed.slice(0, -1 - (sealed.length % 3)), // a shorter ciphertext still parses: it must not open
      `${sealed}.x`,
      sealed.replace(/\.[^.]+$/, ".!!!"),
      ["v1", ring.currentKeyId, `${iv}AA`, tag, ct].join("."), // a 13-byte IV
      ["v1", ring.currentKeyId, iv, (tag ?? "").slice(0, 16), ct].join("."), // a short tag
      "",
      SECRET,
    ]) {
      const err = sealError(() => ring.open(bad, aad));
      expect(["malformed", "does-not-open"]).toContain(err.reason);
      expect(err.message).not.toContain(SECRET);
    }
  });

  it("a value moved to another row (other associated data) does not open", () => {
    const ring = createKeyring(newKey());
    const sealed = ring.seal(SECRET, itemSecretAad("vi_1"));
    expect(sealError(() => ring.open(sealed, itemSecretAad("vi_2"))).reason).toBe("does-not-open");
    expect(sealError(() => ring.open(sealed, connectionTokenAad("vi_1"))).reason).toBe("does-not-open");
    const token = ring.seal("tok", connectionTokenAad("vc_1"));
    expect(ring.open(token, connectionTokenAad("vc_1"))).toBe("tok");
    expect(sealError(() => ring.open(token, connectionTokenAad("vc_2"))).reason).toBe("does-not-open");
  });

  it("rotation: the ring seals with the current key and opens with it or any previous key", () => {
    const old1 = newKey();
    const old2 = newKey();
    const current = newKey();
    const fromOld1 = createKeyring(old1).seal("one", "a");
    const fromOld2 = createKeyring(old2).seal("two", "b");
    const ring = createKeyring(current, [old1, old2, current]);
    expect(ring.currentKeyId).toBe(current.id);
    expect(ring.open(fromOld1, "a")).toBe("one");
    expect(ring.open(fromOld2, "b")).toBe("two");
    expect(ring.keyIdOf(ring.seal("three", "c"))).toBe(current.id);
    // Without the previous key, an old value no longer opens.
    expect(sealError(() => createKeyring(current, [old2]).open(fromOld1, "a")).reason).toBe("unknown-key");
  });

  it("parses keys as base64 (either alphabet, padding optional) or 64 hex characters, nothing else", () => {
    const bytes = randomBytes(32);
    const id = new VaultKey(bytes).id;
    for (const text of [
      bytes.toString("base64"),
      bytes.toString("base64").replace(/=$/, ""),
      bytes.toString("base64url"),
      bytes.toString("hex"),
      bytes.toString("hex").toUpperCase(),
      ` ${bytes.toString("base64")}\n`,
    ]) {
      expect(parseVaultKey(text)?.id, text).toBe(id);
    }
    for (const text of [
      "",
      "short",
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      randomBytes(31).toString("hex"),
      `${bytes.toString("hex")}0`,
      bytes.toString("base64").replace(/^./, "*"),
    ]) {
      expect(parseVaultKey(text), text).toBeNull();
    }
    expect(() => new VaultKey(randomBytes(16))).toThrow(/32 bytes/);
  });

  it("a key shows itself as its keyId only: JSON, inspect, String", () => {
    const bytes = randomBytes(32);
    const key = new VaultKey(bytes);
    const shown = [JSON.stringify({ key }), inspect(key), inspect({ vault: { key } }, { depth: 5 }), String(key)];
    for (const text of shown) {
      expect(text).toContain(key.id);
      for (const enc of ["base64", "hex", "base64url"] as const) expect(text).not.toContain(bytes.toString(enc).slice(0, 12));
    }
    expect(Object.keys(key)).toEqual(["id"]);
  });
});
