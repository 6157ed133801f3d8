import type { AuthContext } from "../services/api-key.service.ts";

/** What middleware puts on the Hono context for the handlers below it. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the auth middleware on every non-public route. */
    auth: AuthContext;
  };
}
