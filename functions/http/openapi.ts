import { z } from "@hono/zod-openapi";
import { type ApiErrorCode, codesForStatus, ERROR_CODES } from "../../schema/errors.ts";

/** Built from the same code list the runtime throws (schema/errors.ts). */
export const ErrorCodeSchema = z.enum(ERROR_CODES).openapi("ErrorCode");

export const ErrorDetailSchema = z
  .object({
    code: z.string().openapi({ example: "invalid_type" }),
    path: z.array(z.union([z.string(), z.number()])).openapi({ example: ["url"] }),
    message: z.string().openapi({ example: "Invalid input: expected string, received undefined" }),
    expected: z.string().optional().openapi({ description: "Present for invalid_type issues." }),
    values: z.array(z.unknown()).optional().openapi({ description: "Present for invalid_value issues: the allowed values." }),
    location: z.enum(["body", "query", "path", "header", "cookie"]).optional().openapi({
      description: "Which part of the request the path is relative to.",
    }),
  })
  .catchall(z.unknown())
  .openapi("ErrorDetail");

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string(),
      details: z
        .array(ErrorDetailSchema)
        .optional()
        .openapi({ description: "Only for 400 INVALID_INPUT: one entry per validation issue." }),
    }),
    request_id: z
      .string()
      .openapi({ description: "Also sent as the X-Request-ID header.", example: "req_01jd8q3x6f0000000000000000" }),
  })
  .openapi("ErrorBody");

const DESCRIPTIONS: Record<number, string> = {
  400: "The request failed validation (INVALID_INPUT, with details).",
  401: "MISSING_API_KEY when X-API-Key is absent or blank; INVALID_API_KEY when it is unknown or revoked; UNAUTHORIZED when the key has expired or its account is suspended.",
  402: "Access or an active subscription is required (FORBIDDEN).",
  403: "Authenticated, but an entitlement, capability or credits are missing (FORBIDDEN). The message names the condition.",
  404: "NOT_FOUND.",
  405: "The path exists but not for this method (NOT_FOUND); the Allow header lists the methods.",
  409: "Transient conflict (RETRY_REQUIRED): retry after 1 to 2 seconds with backoff.",
  413: "The request body is larger than 1 MiB (INVALID_INPUT).",
  422: "The request is well-formed but a value cannot be used (INVALID_INPUT).",
  429: "A rate limit or the pending-run cap is exceeded (RATE_LIMIT_EXCEEDED).",
  500: "Unexpected server error (INTERNAL_ERROR); the message never carries internal details.",
  502: "An upstream the service depends on failed (INTERNAL_ERROR).",
  503: "Temporarily out of capacity (SERVICE_BUSY); retry with backoff.",
  504: "The request timed out (TIMEOUT).",
};

const RATE_LIMIT_HEADERS = {
  "Retry-After": { description: "Seconds until the limit resets.", schema: { type: "integer" as const } },
  "X-RateLimit-Limit": { description: "The current per-minute limit.", schema: { type: "integer" as const } },
};

const REQUEST_ID_HEADER = {
  "X-Request-ID": {
    description: "Identifier of this request; quote it in support requests.",
    schema: { type: "string" as const },
  },
};

function errorExample(code: ApiErrorCode, status: number) {
  return {
    error: { code, message: DESCRIPTIONS[status] ?? code },
    request_id: "req_01jd8q3x6f0000000000000000",
  };
}

/** Error responses for a route: 401 and 500 always, plus the statuses it names. */
export function errorResponses(...statuses: number[]) {
  const all = [...new Set([401, 500, ...statuses])].sort((a, b) => a - b);
  return Object.fromEntries(
    all.map((status) => {
      const codes = codesForStatus(status);
      const examples = Object.fromEntries(codes.map((code) => [code, { value: errorExample(code, status) }]));
      return [
        status,
        {
          description: `${DESCRIPTIONS[status] ?? "Error."} Possible codes: ${codes.join(", ")}.`,
          headers: status === 429 ? { ...REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS } : REQUEST_ID_HEADER,
          content: { "application/json": { schema: ErrorBodySchema, examples } },
        },
      ];
    }),
  );
}

/** A required JSON request body; a missing or non-JSON Content-Type is answered 400. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { "application/json": { schema } },
  } as const;
}

export const SECURITY_SCHEME_NAME = "ApiKeyAuth";

export const securityScheme = {
  type: "apiKey" as const,
  in: "header" as const,
  name: "X-API-Key",
  description:
    "Every endpoint requires an API key in the X-API-Key header. A blank value counts as absent (401 MISSING_API_KEY). Keys start with `osk_`; create them with `npx osprey keys create`.",
};
