import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * A Browser Context Profile (spec 2.3): saved browser state that runs and browser sessions start
 * from. The row holds what the API shows about the profile itself; its state lives in
 * browser_profile_domains, one row per registrable domain. At most one profile per account is the
 * default (`use_profile: true` without `profile_id`), which the partial unique index enforces.
 */
export const browserProfiles = pgTable(
  "browser_profiles",
  {
    /** `prof_…` (spec 2.3). */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** One of the 13 countries of spec 2.3 (checked by the API), or null for no fixed egress country. */
    proxyCountryCode: text("proxy_country_code"),
    isDefault: boolean("is_default").notNull().default(false),
    /** Drives the browser's fingerprint, so a site sees the same device every time; never changes. */
    fingerprintSeed: text("fingerprint_seed").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("browser_profiles_account_created_idx").on(t.accountId, t.createdAt),
    uniqueIndex("browser_profiles_one_default_idx").on(t.accountId).where(sql`${t.isDefault}`),
  ],
);

/**
 * The saved state of one registrable domain of a profile: a DomainState (functions/profiles/
 * profile-state.ts: cookies with every attribute, localStorage per origin) as JSON, sealed with the
 * vault keyring and bound to (profile, domain), so the database holds no cookie or storage value.
 * The counts are taken from the state when it is written, so listing a profile opens nothing. A
 * save replaces a row whole (version + 1): concurrent runs on one profile never mix two states of
 * one domain (functions/profiles/profile.store.ts).
 */
export const browserProfileDomains = pgTable(
  "browser_profile_domains",
  {
    profileId: text("profile_id")
      .notNull()
      .references(() => browserProfiles.id, { onDelete: "cascade" }),
    /** Registrable domain (functions/vault/domains.ts registrableDomain), e.g. example.co.uk. */
    domain: text("domain").notNull(),
    stateCiphertext: text("state_ciphertext").notNull(),
    cookieCount: integer("cookie_count").notNull(),
    localStorageOriginCount: integer("local_storage_origin_count").notNull(),
    lastAccessedAt: ts("last_accessed_at").notNull(),
    lastWrittenAt: ts("last_written_at").notNull(),
    /** The run (or browser session) whose save wrote the state. */
    lastWrittenByRunId: text("last_written_by_run_id").notNull(),
    /** 1 when first written, + 1 on every write. */
    version: integer("version").notNull().default(1),
  },
  (t) => [
    primaryKey({ columns: [t.profileId, t.domain] }),
    check("browser_profile_domains_counts_check", sql`${t.cookieCount} >= 0 and ${t.localStorageOriginCount} >= 0`),
  ],
);

export type BrowserProfileRow = typeof browserProfiles.$inferSelect;
export type NewBrowserProfileRow = typeof browserProfiles.$inferInsert;
export type BrowserProfileDomainRow = typeof browserProfileDomains.$inferSelect;
export type NewBrowserProfileDomainRow = typeof browserProfileDomains.$inferInsert;
