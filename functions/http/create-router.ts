import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env.ts";
import { SECURITY_SCHEME_NAME, securityScheme } from "./openapi.ts";
import { validationHook } from "./validation.ts";

/** Every surface's router comes from here, so every route validates the same way. */
export function createRouter(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openAPIRegistry.registerComponent("securitySchemes", SECURITY_SCHEME_NAME, securityScheme);
  return app;
}
