import type { BrowserContext } from "puppeteer-core";
import type { Logger } from "../../functions/lib/logger.ts";
import type { DomainState, LoadedProfile, ProfileStore } from "../../functions/profiles/profile.types.ts";
import { applyProfileState, changedDomains, readProfileState, watchVisits } from "./profile-state.ts";

/**
 * A browser context bound to a Browser Context Profile (issue [4 of 6]) for a run or a session:
 * the profile's state is loaded into the context before its first navigation, the sites the
 * context visits are watched, and save() writes back only the domains whose state changed since
 * the last load or save among the sites it visited (per-domain last-writer-wins,
 * functions/profiles/profile.types.ts), with those sites as accessed.
 */

export interface ProfileBinding {
  readonly profile: LoadedProfile;
  /** Writes the changed domains, recording `writtenBy` (a run or session id). False when the profile is gone. */
  save(writtenBy: string): Promise<boolean>;
  /** Stops watching the context (save() still works until the context closes). */
  stop(): void;
}

export async function bindProfile(opts: {
  store: Pick<ProfileStore, "load" | "save">;
  accountId: string;
  profileId: string;
  context: BrowserContext;
  logger: Logger;
}): Promise<ProfileBinding | null> {
  const profile = await opts.store.load(opts.accountId, opts.profileId);
  if (!profile) return null;
  // The baseline is the profile as Chromium holds it (domains lower-cased, expiry capped), so a
  // domain the context never touched never looks changed.
  const applied = await applyProfileState(opts.context, profile.domains);
  const visits = watchVisits(opts.context);
  let base: DomainState[] = applied.domains;
  const loadedOrigins = () => base.flatMap((d) => d.localStorage.map((o) => o.origin));
  return {
    profile,
    async save(writtenBy) {
      const origins = [...new Set([...visits.origins(), ...loadedOrigins()])];
      const now = await readProfileState(opts.context, origins);
      // Only the sites the context visited are written (a tracker's cookie from another page is not the run's to keep).
      const visited = new Set(visits.domains());
      const writes = changedDomains(base, now).filter((w) => visited.has(w.domain));
      const saved = await opts.store.save(opts.accountId, profile.id, {
        writes,
        accessed: visits.domains(),
        writtenBy,
        at: new Date(),
      });
      base = now;
      opts.logger.debug("profile saved", {
        profile_id: profile.id,
        written_by: writtenBy,
        domains_written: writes.length,
        saved,
      });
      return saved;
    },
    stop: () => visits.stop(),
  };
}
