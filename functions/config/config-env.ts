import { z } from "zod";

/** Shared zod pieces for the environment schema: an empty variable counts as unset. */

export const emptyAsUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
export const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

export const httpUrl = z.string().refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL");

/** A TCP port to listen on, 1–65535, or unset. */
export const optionalPort = z.preprocess(
  emptyAsUndefined,
  z.coerce
    .number({ error: "must be an integer between 1 and 65535" })
    .int("must be an integer between 1 and 65535")
    .min(1, "must be an integer between 1 and 65535")
    .max(65535, "must be an integer between 1 and 65535")
    .optional(),
);
