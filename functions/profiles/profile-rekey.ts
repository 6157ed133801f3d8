import type { Db } from "../db/db.ts";
import { type Keyring, profileDomainAad, VaultSealError } from "../vault/crypto.ts";
import { profileRepo } from "./profile.repo.ts";

export interface ProfileRekeyCount {
  /** Re-sealed under the current key. */
  resealed: number;
  /** Already under the current key (or written again by a save while this ran). */
  current: number;
  /** States no configured key opens (left as they were), with why (a keyId at most). */
  failed: { profileId: string; domain: string; reason: string }[];
}

const BATCH = 200;

/**
 * Re-seals every profile domain state under the keyring's current key, for `osprey vault rekey`
 * after a rotation (new OSPREY_VAULT_KEY, the old one in OSPREY_VAULT_KEY_PREVIOUS): without it, a
 * state sealed under a key later dropped no longer opens, and runs start without it. Safe to run
 * again; it only moves what is not under the current key, a batch at a time.
 */
export async function rekeyProfiles(deps: { db: Db; keyring: Keyring }): Promise<ProfileRekeyCount> {
  const repo = profileRepo(deps.db);
  const { keyring } = deps;
  const count: ProfileRekeyCount = { resealed: 0, current: 0, failed: [] };
  let after: { profileId: string; domain: string } | null = null;
  for (;;) {
    const batch = await repo.sealedStates(after, BATCH);
    for (const s of batch) {
      if (keyring.keyIdOf(s.sealed) === keyring.currentKeyId) {
        count.current++;
        continue;
      }
      const aad = profileDomainAad(s.profileId, s.domain);
      let plaintext: string;
      try {
        plaintext = keyring.open(s.sealed, aad);
      } catch (err) {
        if (!(err instanceof VaultSealError)) throw err;
        count.failed.push({ profileId: s.profileId, domain: s.domain, reason: err.message });
        continue;
      }
      // A state a save replaced meanwhile was sealed under the current key by then.
      if (await repo.replaceSealed(s.profileId, s.domain, s.sealed, keyring.seal(plaintext, aad))) count.resealed++;
      else count.current++;
    }
    const last = batch.at(-1);
    if (!last || batch.length < BATCH) return count;
    after = { profileId: last.profileId, domain: last.domain };
  }
}
