import { randomBytes } from "node:crypto";
import type { ProxyCountry } from "../config/config-browser.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/ids.ts";
import { type Page, type PageRequest, toPage } from "../lib/pagination.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import { normaliseDomain, registrableDomain } from "../vault/domains.ts";
import { type BrowserProfileRow, type DomainMeta, type ProfilePatch, profileRepo } from "./profile.repo.ts";
import { type CreateProfileRequest, PROFILE_LIMITS, type UpdateProfileRequest } from "./profile.schemas.ts";
import type { ProfileStore } from "./profile.types.ts";

/**
 * The Browser Context Profile API (spec 2.3, 4.4; the rest of it designed per 4.8): create, read,
 * list, rename, move the default, delete, forget a site. Every call is scoped to the caller's
 * account: another account's profile is 404, as an unknown one. No state is opened here: the API
 * shows counts and times, never a cookie or storage value.
 */

export interface ProfileDomainWire {
  domain: string;
  cookie_count: number;
  local_storage_origin_count: number;
  last_accessed_at: string;
  last_written_at: string;
  last_written_by_run_id: string;
}

export interface ProfileWire {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  domains: ProfileDomainWire[];
  domain_count: number;
  proxy_country_code: ProxyCountry | null;
  is_default: boolean;
  fingerprint_seed: string;
}

export function profileToWire(row: BrowserProfileRow, domains: DomainMeta[]): ProfileWire {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    domains: domains.map((d) => ({
      domain: d.domain,
      cookie_count: d.cookieCount,
      local_storage_origin_count: d.localStorageOriginCount,
      last_accessed_at: d.lastAccessedAt.toISOString(),
      last_written_at: d.lastWrittenAt.toISOString(),
      last_written_by_run_id: d.lastWrittenByRunId,
    })),
    domain_count: domains.length,
    proxy_country_code: row.proxyCountryCode as ProxyCountry | null,
    is_default: row.isDefault,
    fingerprint_seed: row.fingerprintSeed,
  };
}

export interface ProfileServiceDeps {
  db: Db;
  clock: Clock;
  /** The states' store (profileStore over the vault keyring): handed on to what loads and saves states. */
  store: ProfileStore;
}

const notFound = (id: string) => new AppError("NOT_FOUND", `No browser context profile ${id}.`);

export function profileService(deps: ProfileServiceDeps) {
  const repo = profileRepo(deps.db);

  async function wire(row: BrowserProfileRow): Promise<ProfileWire> {
    return profileToWire(row, await repo.domainsOf([row.id]));
  }

  return {
    /** The ProfileStore this service was built with, for the endpoints that load or save a profile's state. */
    store: deps.store,

    async create(auth: AuthContext, body: CreateProfileRequest): Promise<ProfileWire> {
      const now = deps.clock.now();
      const max = PROFILE_LIMITS.maxPerAccount;
      const inserted = await repo.insertWithinCap(
        {
          id: newId("prof", now.getTime()),
          accountId: auth.account.id,
          name: body.name,
          proxyCountryCode: body.proxy_country_code ?? null,
          isDefault: body.is_default,
          fingerprintSeed: body.fingerprint_seed ?? randomBytes(12).toString("base64url"),
          createdAt: now,
          updatedAt: now,
        },
        max,
      );
      if (!inserted.ok) {
        throw new AppError(
          "FORBIDDEN",
          `This account has ${inserted.count} browser context profiles, the most it may keep is ${max}; delete one (DELETE /v1/profiles/{id}) first.`,
        );
      }
      return profileToWire(inserted.row, []);
    },

    async get(auth: AuthContext, id: string): Promise<ProfileWire> {
      const row = await repo.get(auth.account.id, id);
      if (!row) throw notFound(id);
      return wire(row);
    },

    async list(auth: AuthContext, page: PageRequest): Promise<Page<ProfileWire>> {
      const { items, total } = await repo.list(auth.account.id, page);
      const domains = await repo.domainsOf(items.map((p) => p.id));
      const byProfile = new Map<string, DomainMeta[]>();
      for (const d of domains) byProfile.set(d.profileId, [...(byProfile.get(d.profileId) ?? []), d]);
      return toPage(
        items.map((p) => profileToWire(p, byProfile.get(p.id) ?? [])),
        total,
        page,
      );
    },

    async update(auth: AuthContext, id: string, body: UpdateProfileRequest): Promise<ProfileWire> {
      const patch: ProfilePatch = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.proxy_country_code !== undefined) patch.proxyCountryCode = body.proxy_country_code;
      if (body.is_default !== undefined) patch.isDefault = body.is_default;
      const row =
        Object.keys(patch).length === 0
          ? await repo.get(auth.account.id, id)
          : await repo.update(auth.account.id, id, patch, deps.clock.now());
      if (!row) throw notFound(id);
      return wire(row);
    },

    /** Deletes the profile and every domain's state; the default profile leaves the account with none. */
    async remove(auth: AuthContext, id: string): Promise<void> {
      if (!(await repo.remove(auth.account.id, id))) throw notFound(id);
    },

    /** Forgets the saved state of the registrable domain of `host`. */
    async forgetDomain(auth: AuthContext, id: string, host: string): Promise<void> {
      const normalised = normaliseDomain(host);
      // A name normaliseDomain refuses (an intranet host, an IPv6 address) is looked up as written.
      const domain = normalised ? registrableDomain(normalised) : host.toLowerCase();
      const outcome = await repo.forgetDomain(auth.account.id, id, domain, deps.clock.now());
      if (outcome === "no-profile") throw notFound(id);
      if (outcome === "no-domain")
        throw new AppError("NOT_FOUND", `Browser context profile ${id} has no saved state for ${domain}.`);
    },
  };
}

export type ProfileService = ReturnType<typeof profileService>;
