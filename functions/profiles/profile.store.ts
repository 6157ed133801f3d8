import type { Db } from "../db/db.ts";
import type { Logger } from "../lib/logger.ts";
import { type Keyring, profileDomainAad, VaultSealError } from "../vault/crypto.ts";
import { type DomainOp, profileRepo } from "./profile.repo.ts";
import type { LoadedProfile, ProfileSave, ProfileStore } from "./profile.types.ts";
import type { DomainState } from "./profile-state.ts";

/**
 * The ProfileStore port over the database: each domain's DomainState is kept as JSON sealed with
 * the vault keyring, bound to (profile id, domain), so a state copied into another row or profile
 * does not open.
 *
 * Concurrency: per-domain last-writer-wins. A save writes only the domains it names, each row
 * replaced whole by one upsert (version + 1), and all of one save commits in one transaction that
 * holds the profile row (profile.repo.ts applySave): two runs on one profile at once never leave a
 * domain holding part of one run's state and part of the other's, and a domain a run did not change
 * keeps what another run wrote. What a run read at its start is not checked against what is
 * stored at its end: the later save of a domain wins.
 */

/**
 * Largest state kept for one domain, as JSON (sealed it is about a third larger). Chromium keeps
 * at most 180 cookies of 4 KiB per domain (≈ 0.7 MiB); the rest is localStorage (5 MiB per origin
 * in Chromium): a larger state loses its largest origins' localStorage, and one still too large
 * (cookies alone) is not written, with a warning, leaving the domain's previous state.
 */
export const MAX_DOMAIN_STATE_BYTES = 4 * 1024 * 1024;
/** Most domains one profile keeps; a save's new domains beyond it are left out, with a warning. */
export const MAX_DOMAINS_PER_PROFILE = 1000;
/** A registrable domain as the browser side names it: a host name, an IPv4 or a bracketed IPv6 address. */
const DOMAIN = /^[a-z0-9.\-[\]:_]{1,253}$/;

export interface ProfileStoreDeps {
  db: Db;
  keyring: Keyring;
  logger: Logger;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** Origins that hold at least one item (an empty localStorage is no storage). */
const originCount = (state: DomainState) => state.localStorage.filter((o) => o.items.length > 0).length;

/**
 * `state` as JSON within MAX_DOMAIN_STATE_BYTES: the largest origins' localStorage dropped first
 * until it fits; null when the cookies alone do not fit.
 */
function fitted(state: DomainState): { json: string; state: DomainState; droppedOrigins: number } | null {
  let json = JSON.stringify(state);
  if (bytes(json) <= MAX_DOMAIN_STATE_BYTES) return { json, state, droppedOrigins: 0 };
  const bySize = state.localStorage.map((o) => ({ o, size: bytes(JSON.stringify(o)) })).sort((a, b) => b.size - a.size);
  let size = bytes(json);
  let dropped = 0;
  while (size > MAX_DOMAIN_STATE_BYTES && dropped < bySize.length) {
    // +1 for the comma that went with it; an estimate, checked again below.
    size -= (bySize[dropped]?.size ?? 0) + 1;
    dropped += 1;
  }
  const kept = new Set(bySize.slice(dropped).map((x) => x.o));
  const smaller = { ...state, localStorage: state.localStorage.filter((o) => kept.has(o)) };
  json = JSON.stringify(smaller);
  return bytes(json) <= MAX_DOMAIN_STATE_BYTES ? { json, state: smaller, droppedOrigins: dropped } : null;
}

export function profileStore(deps: ProfileStoreDeps): ProfileStore {
  const repo = profileRepo(deps.db);
  const { keyring, logger } = deps;

  /** The domain ops of a save: one per domain (a later write of a domain replaces an earlier one), sealed. */
  function opsOf(profileId: string, save: ProfileSave): DomainOp[] {
    const ops = new Map<string, DomainOp>();
    for (const w of save.writes) {
      const domain = w.domain.toLowerCase();
      if (!DOMAIN.test(domain)) {
        logger.warn("profile save: a write names no usable domain; left out", { profile_id: profileId, writer: save.writtenBy });
        continue;
      }
      if (w.state === null) {
        ops.set(domain, { kind: "forget", domain });
        continue;
      }
      const fit = fitted({ ...w.state, domain });
      if (!fit) {
        logger.warn("profile save: a domain's cookies exceed the size cap; its previous state is kept", {
          profile_id: profileId,
          domain,
          writer: save.writtenBy,
          cookies: w.state.cookies.length,
          cap_bytes: MAX_DOMAIN_STATE_BYTES,
        });
        ops.delete(domain);
        continue;
      }
      if (fit.droppedOrigins > 0) {
        logger.warn("profile save: a domain's state exceeds the size cap; its largest localStorage origins are left out", {
          profile_id: profileId,
          domain,
          writer: save.writtenBy,
          dropped_origins: fit.droppedOrigins,
          cap_bytes: MAX_DOMAIN_STATE_BYTES,
        });
      }
      ops.set(domain, {
        kind: "write",
        domain,
        sealed: keyring.seal(fit.json, profileDomainAad(profileId, domain)),
        cookieCount: fit.state.cookies.length,
        localStorageOriginCount: originCount(fit.state),
      });
    }
    for (const a of save.accessed) {
      const domain = a.toLowerCase();
      if (DOMAIN.test(domain) && !ops.has(domain)) ops.set(domain, { kind: "access", domain });
    }
    return [...ops.values()];
  }

  return {
    async resolve(accountId, profileId) {
      const row = await repo.resolve(accountId, profileId);
      return row ? { id: row.id, fingerprintSeed: row.fingerprintSeed, proxyCountryCode: row.proxyCountryCode } : null;
    },

    async load(accountId, profileId): Promise<LoadedProfile | null> {
      const found = await repo.withStates(accountId, profileId);
      if (!found) return null;
      const { profile } = found;
      const domains: DomainState[] = [];
      for (const row of found.domains) {
        try {
          const state = JSON.parse(keyring.open(row.stateCiphertext, profileDomainAad(profile.id, row.domain))) as DomainState;
          domains.push({ ...state, domain: row.domain });
        } catch (err) {
          // A state no configured key opens (a key rotation without `osprey vault rekey`) is left
          // out rather than failing the run; the reason names at most a keyId.
          logger.warn("profile load: a domain's state does not open; it is left out", {
            profile_id: profile.id,
            domain: row.domain,
            reason: err instanceof VaultSealError ? err.message : "the stored state is not valid JSON",
          });
        }
      }
      return {
        id: profile.id,
        accountId: profile.accountId,
        name: profile.name,
        fingerprintSeed: profile.fingerprintSeed,
        proxyCountryCode: profile.proxyCountryCode,
        domains,
      };
    },

    async save(accountId, profileId, save) {
      const ops = opsOf(profileId, save);
      const applied = await repo.applySave(accountId, profileId, ops, {
        at: save.at,
        writtenBy: save.writtenBy,
        maxDomains: MAX_DOMAINS_PER_PROFILE,
      });
      if (applied.overCap.length > 0) {
        logger.warn("profile save: the profile has the most domains it may keep; new domains are left out", {
          profile_id: profileId,
          writer: save.writtenBy,
          left_out: applied.overCap.length,
          cap: MAX_DOMAINS_PER_PROFILE,
        });
      }
      return applied.saved;
    },
  };
}
