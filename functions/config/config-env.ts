import { z } from "zod";

/** Shared zod pieces for the environment schema: an empty variable counts as unset. */

export const emptyAsUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
export const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

export const httpUrl = z.string().refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL");
