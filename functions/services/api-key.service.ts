import { createHash } from "node:crypto";
import type { ApiKeyScope } from "../../schema/api-keys.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { type IdGenerator, randomBase62 } from "../lib/ids.ts";
import { type Page, type PageRequest, toPage } from "../lib/pagination.ts";
import { type ApiKeyRow, apiKeyRepo } from "../repos/api-key.repo.ts";
import { type AccountView, toAccountView } from "./account.service.ts";

/** Every key starts with this, so leaked keys are easy to recognise (and to scan for). */
export const KEY_PREFIX = "osk_";
/** 40 base62 characters ≈ 238 bits of entropy. */
const SECRET_LENGTH = 40;
/** Characters of the key kept for display: the marker plus 8 of the secret. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;
/** last_used_at is written at most this often per key. */
const LAST_USED_GRANULARITY_MS = 60_000;
/** Longer headers cannot be keys; they are rejected before hashing. */
const MAX_HEADER_LENGTH = 256;

/** A stored key as services hand it out (never with its secret). */
export type ApiKeyRecord = ApiKeyRow;

export const hashKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

export interface AuthContext {
  keyId: string;
  keyPrefix: string;
  scope: ApiKeyScope;
  subUserId: string | null;
  account: AccountView;
}

export interface CreatedKey {
  /** The secret. Shown once, at creation; only its hash is stored. */
  key: string;
  row: ApiKeyRow;
}

export interface CreateKeyInput {
  accountId: string;
  name?: string | null;
  scope?: ApiKeyScope;
  subUserId?: string | null;
  expiresAt?: Date | null;
}

export function apiKeyService(deps: { db: Db; clock: Clock; ids: IdGenerator }) {
  const keys = apiKeyRepo(deps.db);
  return {
    async create(input: CreateKeyInput): Promise<CreatedKey> {
      const key = `${KEY_PREFIX}${randomBase62(SECRET_LENGTH)}`;
      const row = await keys.insert({
        id: deps.ids.apiKey(),
        accountId: input.accountId,
        keyHash: hashKey(key),
        prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
        name: input.name ?? null,
        scope: input.scope ?? "api",
        subUserId: input.subUserId ?? null,
        expiresAt: input.expiresAt ?? null,
        createdAt: deps.clock.now(),
      });
      return { key, row };
    },

    /**
     * Resolves the X-API-Key header (spec 5). The lookup is by SHA-256 through a unique index:
     * the secret is never compared byte by byte, so response time says nothing about how much of
     * a guess was right. Header absent or blank → MISSING_API_KEY (a blank value cannot be a key,
     * and some proxies turn an absent header into an empty one).
     */
    async authenticate(header: string | undefined): Promise<AuthContext> {
      const raw = header?.trim() ?? "";
      if (raw === "") throw new AppError("MISSING_API_KEY", "The X-API-Key header is required.");
      const found = raw.length <= MAX_HEADER_LENGTH ? await keys.findByHash(hashKey(raw)) : null;
      if (!found || found.key.revokedAt) {
        throw new AppError("INVALID_API_KEY", "The API key is unknown or has been revoked.");
      }
      const now = deps.clock.now();
      if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) {
        throw new AppError("UNAUTHORIZED", "The API key has expired; create a new one.");
      }
      if (found.account.suspendedAt) {
        throw new AppError("UNAUTHORIZED", "The account that owns this API key is suspended.");
      }
      if (!found.key.lastUsedAt || now.getTime() - found.key.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
        await keys.touchLastUsed(found.key.id, now, LAST_USED_GRANULARITY_MS);
      }
      return {
        keyId: found.key.id,
        keyPrefix: found.key.prefix,
        scope: found.key.scope,
        subUserId: found.key.subUserId,
        account: toAccountView(found.account),
      };
    },

    async listForAccount(accountId: string, page: PageRequest): Promise<Page<ApiKeyRow>> {
      const { items, total } = await keys.listForAccount(accountId, page);
      return toPage(items, total, page);
    },

    listAll: (accountId?: string) => keys.listAll(accountId),

    /**
     * Revokes the key with this id or display prefix. Returns the revoked row; null when nothing
     * matched; throws when a prefix is ambiguous (the caller must use the id).
     */
    async revoke(idOrPrefix: string): Promise<{ row: ApiKeyRow; alreadyRevoked: boolean } | null> {
      const matches = await keys.findByIdOrPrefix(idOrPrefix);
      if (matches.length === 0) return null;
      if (matches.length > 1) {
        throw new AppError("INVALID_INPUT", `"${idOrPrefix}" matches ${matches.length} keys; revoke by id instead.`);
      }
      const match = matches[0] as ApiKeyRow;
      if (match.revokedAt) return { row: match, alreadyRevoked: true };
      const row = await keys.revoke(match.id, deps.clock.now());
      return { row: row ?? match, alreadyRevoked: row === null };
    },
  };
}

export type ApiKeyService = ReturnType<typeof apiKeyService>;
