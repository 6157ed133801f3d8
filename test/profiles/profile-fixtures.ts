import { randomBytes } from "node:crypto";
import type { Db } from "../../functions/db/db.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { type ProfileService, profileService } from "../../functions/profiles/profile.service.ts";
import { profileStore } from "../../functions/profiles/profile.store.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import type { DomainState, ProfileCookie } from "../../functions/profiles/profile-state.ts";
import { createKeyring, type Keyring, VaultKey } from "../../functions/vault/crypto.ts";

/** A fresh keyring: what the vault key of a server would be. */
export const testKeyring = (): Keyring => createKeyring(new VaultKey(randomBytes(32)));

/** The profile API and its store over `db`, as the server builds them. */
export function profilesOver(
  db: Db,
  keyring: Keyring,
  logger: Logger,
  clock: Clock,
): { service: ProfileService; store: ProfileStore } {
  const store = profileStore({ db, keyring, logger });
  return { service: profileService({ db, clock, store }), store };
}

/** A cookie with every attribute set, a partitioned (CHIPS) one when `partitioned`. */
export function cookie(domain: string, name: string, value: string, partitioned = false): ProfileCookie {
  return {
    name,
    value,
    domain: `.${domain}`,
    path: "/",
    expires: 1_900_000_000,
    httpOnly: true,
    secure: true,
    sameSite: partitioned ? "None" : "Lax",
    priority: "High",
    sourceScheme: "Secure",
    sourcePort: 443,
    ...(partitioned ? { partitionKey: { topLevelSite: "https://top.example", hasCrossSiteAncestor: false } } : {}),
  };
}

/** A domain's state stamped with `tag` in every value, so a test can tell whose state a domain holds. */
export function stateOf(domain: string, tag: string, cookies = 2, origins = 1): DomainState {
  return {
    domain,
    cookies: Array.from({ length: cookies }, (_, i) => cookie(domain, `c${i}`, `${tag}-cookie-${i}`, i === 0)),
    localStorage: Array.from({ length: origins }, (_, i) => ({
      origin: `https://${i === 0 ? "" : `o${i}.`}${domain}`,
      items: [
        ["writer", tag],
        [`k${i}`, `${tag}-storage-${i}`],
      ] as [string, string][],
    })),
  };
}
