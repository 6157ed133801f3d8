/** The one mulberry32 (functions/lib/prng.ts), re-exported for the fuzzer and bench helpers. */
export { mulberry32 } from "../../functions/lib/prng.ts";
