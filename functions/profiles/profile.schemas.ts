import { z } from "@hono/zod-openapi";
import { PROXY_COUNTRIES } from "../config/config-browser.ts";

/**
 * The Browser Context Profile API's wire shapes: the profile of spec 2.3, and the list, create,
 * update and delete endpoints spec 4.8 leaves "not shown", designed as Browserbase contexts, Steel
 * session contexts and Browser Use profiles do it.
 */

export const PROFILE_LIMITS = {
  /** Profiles one account may keep; one more is 403 FORBIDDEN (delete one first). */
  maxPerAccount: 100,
  nameMaxLength: 100,
  seedMaxLength: 128,
} as const;

const example = "prof_01jd8q3x6f4b2c9e1h7k5m3n8p";

export const ProfileDomainSchema = z
  .object({
    domain: z.string().openapi({ description: "Registrable domain (eTLD+1, Public Suffix List).", example: "example.co.uk" }),
    cookie_count: z.number().int().min(0),
    local_storage_origin_count: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "Origins under the domain whose localStorage holds at least one item." }),
    last_accessed_at: z.string().datetime().openapi({ description: "Last time a run or session that saved visited the domain." }),
    last_written_at: z.string().datetime(),
    last_written_by_run_id: z
      .string()
      .openapi({ description: "The run (or, for a browser session, the session id) whose save wrote the state." }),
  })
  .openapi("BrowserContextProfileDomain");

export const ProfileSchema = z
  .object({
    id: z.string().min(1).openapi({ example }),
    name: z.string(),
    created_at: z.string().datetime(),
    updated_at: z.string().datetime().openapi({ description: "Last change of the profile or of its saved state." }),
    domains: z.array(ProfileDomainSchema).openapi({
      description: "Every domain with saved state, sorted by domain. Never a cookie or storage value.",
    }),
    domain_count: z.number().int().min(0),
    proxy_country_code: z.enum(PROXY_COUNTRIES).nullable(),
    is_default: z.boolean(),
    fingerprint_seed: z.string(),
  })
  .openapi("BrowserContextProfile");

/** Spec 4.4: profileId, string, min length 1; longer than any id or with other characters is 400, an unknown one 404. */
export const ProfileIdParam = z.object({
  profileId: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, "a profile id has only letters, digits, _ and -")
    .openapi({ param: { name: "profileId", in: "path" }, example }),
});

export const ProfileDomainParam = ProfileIdParam.extend({
  domain: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[^\s/?#@\\]+$/, "domain is a host name such as example.com")
    .openapi({
      param: { name: "domain", in: "path" },
      description: "A host; its registrable domain is forgotten (login.example.co.uk forgets example.co.uk).",
      example: "example.com",
    }),
});

const name = z
  .string()
  .trim()
  .min(1, "name must not be blank")
  .max(PROFILE_LIMITS.nameMaxLength)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a name is one line of text
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), "name must not contain control characters")
  .openapi({ description: "Display name, 1 to 100 characters (trimmed).", example: "Shop account" });

const proxyCountry = z.enum(PROXY_COUNTRIES).openapi({
  description: `Egress country of runs and sessions on the profile: one of ${PROXY_COUNTRIES.join(", ")}.`,
});

const SEED_RULE = "fingerprint_seed is 1 to 128 characters of A-Z, a-z, 0-9, _ and -";

export const CreateProfileSchema = z
  .object({
    name,
    proxy_country_code: proxyCountry.nullable().optional(),
    is_default: z
      .boolean()
      .default(false)
      .openapi({ description: "Make it the account's default profile (the former default stops being one)." }),
    fingerprint_seed: z
      .string()
      .min(1, SEED_RULE)
      .max(PROFILE_LIMITS.seedMaxLength, SEED_RULE)
      .regex(/^[A-Za-z0-9_-]+$/, SEED_RULE)
      .optional()
      .openapi({ description: `${SEED_RULE}. Default: 16 random base64url characters. It cannot be changed later.` }),
  })
  .strict()
  .openapi("CreateBrowserContextProfile");

export const UpdateProfileSchema = z
  .object({
    name: name.optional(),
    proxy_country_code: proxyCountry.nullable().optional().openapi({ description: "null clears it." }),
    is_default: z.boolean().optional().openapi({
      description:
        "true makes it the default (the former default stops being one); false on the default leaves the account with none.",
    }),
    // Named here rather than left to .strict(), so the 400 says why instead of "unrecognized key".
    fingerprint_seed: z
      .unknown()
      .refine((v) => v === undefined, {
        message:
          "fingerprint_seed cannot be changed: it is the device sites have seen; create another profile for another fingerprint",
      })
      .optional()
      .openapi({ description: "Immutable: sending it is 400 INVALID_INPUT." }),
  })
  .strict()
  .openapi("UpdateBrowserContextProfile");

export type CreateProfileRequest = z.infer<typeof CreateProfileSchema>;
export type UpdateProfileRequest = z.infer<typeof UpdateProfileSchema>;
