import { z } from "@hono/zod-openapi";
import { RUN_ERROR_CODES } from "../../../schema/errors.ts";
import { RUN_ENTRIES, RUN_STATUSES } from "../../../schema/runs.ts";
import { timestampParam } from "../../lib/date-params.ts";
import { PaginationQuery } from "../../lib/pagination.ts";
import { RunRequestSchema } from "../../runs/run-request.schema.ts";

export const BATCH_MAX_RUNS = 25;

export const RunErrorWireSchema = z
  .object({
    code: z.enum(RUN_ERROR_CODES),
    message: z.string(),
    category: z.enum(["SYSTEM_FAILURE", "AGENT_FAILURE", "BILLING_FAILURE", "UNKNOWN"]).nullable().openapi({
      description: "SYSTEM_FAILURE: retry. AGENT_FAILURE: refine the input. BILLING_FAILURE: add credits. null for CANCELLED.",
    }),
    retry_after: z.number().nullable().openapi({ description: "Seconds to wait before retrying, when known." }),
    help_url: z.string().optional(),
    help_message: z.string().optional(),
  })
  .openapi("RunError", { description: "Spec 7.2: why a run ended FAILED or CANCELLED (the HTTP status stays 200)." });

export const RunScreenshotSchema = z
  .object({
    step: z.number().int(),
    url: z.string(),
    media_type: z.literal("image/png"),
    data: z.string().openapi({ description: "Base64 of the PNG." }),
  })
  .openapi("RunScreenshot");

export const RunSchema = z
  .object({
    run_id: z.string().openapi({ example: "run_01jd8q3x6f4b2c9e1h7k5m3n8p" }),
    status: z.enum(RUN_STATUSES).openapi({
      description:
        "PENDING (queued) → RUNNING (a worker drives the browser) → COMPLETED | FAILED | CANCELLED. A PENDING run can also end FAILED or CANCELLED directly. COMPLETED does not guarantee the goal was achieved: inspect result.",
    }),
    result: z
      .unknown()
      .openapi({ description: "The agent's final answer (shaped by output_schema when given); null unless COMPLETED." }),
    error: RunErrorWireSchema.nullable(),
    url: z.string(),
    goal: z.string(),
    entry: z.enum(RUN_ENTRIES).openapi({ description: "How the run was created: run (blocking), async, sse or batch." }),
    batch_id: z.string().nullable(),
    created_at: z.string().datetime(),
    started_at: z.string().datetime().nullable(),
    finished_at: z.string().datetime().nullable(),
    steps: z.number().int().openapi({ description: "Agent steps taken so far." }),
    credits_used: z.number().int().openapi({ description: "Credits taken so far (1 per step)." }),
    usage: z
      .object({ input_tokens: z.number().int(), output_tokens: z.number().int() })
      .openapi({ description: "Model tokens used." }),
    streaming_url: z.string().nullable().openapi({
      description:
        "Live view of the run's browser: an unguessable URL that works without a key while the run is open and for 60 s after it ends, then answers 404 (after that this field is null). Always null in webhook bodies. Share with care.",
    }),
    cancel_requested: z.boolean(),
    screenshots: z
      .array(RunScreenshotSchema)
      .optional()
      .openapi({ description: "Only with ?screenshots=base64: one per step that captured one." }),
  })
  .openapi("Run");

export const RunIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "id", in: "path" }, example: "run_01jd8q3x6f4b2c9e1h7k5m3n8p" }),
});

export const StepParam = RunIdParam.extend({
  step: z
    .string()
    .regex(/^\d{1,6}$/, "step must be a positive integer")
    .transform(Number)
    .pipe(z.number().int().min(1))
    .openapi({ param: { name: "step", in: "path" }, type: "integer", example: "1" }),
});

export const GetRunQuery = z.object({
  screenshots: z
    .enum(["base64"])
    .optional()
    .openapi({
      param: { name: "screenshots", in: "query", description: "base64: include each step's screenshot." },
    }),
});

export const ListRunsQuery = PaginationQuery.extend({
  status: z
    .enum(RUN_STATUSES)
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  batch_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "batch_id", in: "query" } }),
  created_after: timestampParam("created_after", "Only runs created at or after this time."),
  created_before: timestampParam("created_before", "Only runs created before this time."),
});

export const RunAsyncResponseSchema = RunSchema.openapi("RunAccepted", {
  description: "The run as accepted (status PENDING); poll GET /v1/runs/{id} or wait for the webhook.",
});

export const RunBatchRequestSchema = z
  .object({
    runs: z
      .array(RunRequestSchema)
      .min(1)
      .max(BATCH_MAX_RUNS)
      .openapi({ description: `1 to ${BATCH_MAX_RUNS} run requests (the 4.1 body each).` }),
  })
  .strict()
  .openapi("RunBatchRequest");

export const RunBatchSlotSchema = z
  .union([
    z.object({ index: z.number().int(), run_id: z.string(), status: z.enum(RUN_STATUSES) }),
    z.object({
      index: z.number().int(),
      run_id: z.null(),
      error: z
        .object({ code: z.string(), message: z.string() })
        .openapi({ description: "Why this child was not started (e.g. RATE_LIMIT_EXCEEDED)." }),
    }),
  ])
  .openapi("RunBatchSlot");

export const RunBatchResponseSchema = z
  .object({
    batch_id: z.string(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    runs: z.array(RunBatchSlotSchema).openapi({ description: "One slot per requested run, in request order." }),
  })
  .openapi("RunBatchResponse");

export const RunStepSchema = z
  .object({
    step: z.number().int(),
    purpose: z.string(),
    action: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
    ok: z.boolean(),
    message: z.string(),
    url: z.string(),
    title: z.string(),
    created_at: z.string().datetime(),
    timings_ms: z.object({ model: z.number().int(), action: z.number().int(), capture: z.number().int() }),
    artifacts: z.object({
      screenshot: z.string().nullable().openapi({ description: "Path of the step's PNG, when captured." }),
      html: z.string().nullable(),
      elements: z.string().nullable(),
    }),
  })
  .openapi("RunStep");
