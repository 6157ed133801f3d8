import type { DomainState } from "./profile-state.ts";

/**
 * The port runs and browser sessions use to start from a Browser Context Profile and to write
 * back what they changed (issue [4 of 6]). profile.store.ts implements it over the database and
 * the vault keyring.
 *
 * Concurrency rule: per-domain last-writer-wins. A save replaces only the domains it writes, each
 * domain row whole and atomically (an upsert that bumps its version), and all of one save commits
 * in one transaction. So two runs on one profile at once never leave a domain with a mix of their
 * two states, and the domains a run did not change keep what another run wrote.
 */

export type { DomainState };

export interface LoadedProfile {
  id: string;
  accountId: string;
  name: string;
  fingerprintSeed: string;
  proxyCountryCode: string | null;
  domains: DomainState[];
}

export interface ProfileSave {
  /** Domains whose state changed: replaced whole, or forgotten when state is null. */
  writes: { domain: string; state: DomainState | null }[];
  /** Domains the browser visited (their last_accessed_at becomes `at`; a visited domain with no row gets none). */
  accessed: string[];
  /** Recorded as last_written_by_run_id (a run id, or a browser session id for sessions). */
  writtenBy: string;
  at: Date;
}

export interface ProfileStore {
  /** The profile a run or session would use: `profileId` (null when it is not this account's) or, when undefined, the account's default (null when none). */
  resolve(
    accountId: string,
    profileId: string | undefined,
  ): Promise<{ id: string; fingerprintSeed: string; proxyCountryCode: string | null } | null>;
  /** The profile with every domain's state opened; null when gone. */
  load(accountId: string, profileId: string): Promise<LoadedProfile | null>;
  /** Writes `save` in one transaction; a profile deleted meanwhile is a no-op (returns false). */
  save(accountId: string, profileId: string, save: ProfileSave): Promise<boolean>;
}
