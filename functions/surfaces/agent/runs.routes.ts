import { createRoute, z } from "@hono/zod-openapi";
import { CREDITS_PER_STEP, DEFAULT_MAX_DURATION_SECONDS, DEFAULT_MAX_STEPS } from "../../../schema/runs.ts";
import { errorResponses, jsonBody } from "../../http/openapi.ts";
import { pageSchema } from "../../lib/pagination.ts";
import { RunRequestSchema } from "../../runs/run-request.schema.ts";
import {
  BATCH_MAX_RUNS,
  GetRunQuery,
  ListRunsQuery,
  RunAsyncResponseSchema,
  RunBatchRequestSchema,
  RunBatchResponseSchema,
  RunIdParam,
  RunSchema,
  RunStepSchema,
  StepParam,
} from "./runs.schemas.ts";

const FrameParam = RunIdParam.extend({
  frame: z
    .string()
    .regex(/^\d{1,7}$/, "frame must be a positive integer")
    .transform(Number)
    .pipe(z.number().int().min(1))
    .openapi({ param: { name: "frame", in: "path" }, type: "integer", example: "1" }),
});

export const recordingFrameRoute = createRoute({
  method: "get",
  path: "/v1/runs/{id}/recording/frames/{frame}",
  tags: ["agent"],
  summary: "One frame of a run's recording",
  description:
    "A JPEG of the run's browser; `frame` counts from 1 in the order of GET /v1/runs/{id}/recording. 404 when there is no such frame.",
  request: { params: FrameParam },
  responses: {
    200: { description: "The frame.", content: { "image/jpeg": { schema: z.string().openapi({ format: "binary" }) } } },
    ...errorResponses(400, 404),
  },
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const RUN_RULES = [
  `Budgets: agent_config.max_steps defaults to ${DEFAULT_MAX_STEPS} (beta accounts may set 1 to 200) and`,
  `agent_config.max_duration_seconds to ${DEFAULT_MAX_DURATION_SECONDS} (10 to 3600). A run takes ${CREDITS_PER_STEP} credit per step;`,
  "an account with no credits is refused with 403 before the run is accepted, and a run that exhausts them ends",
  "FAILED with INSUFFICIENT_CREDITS. The pending-run cap (runs PENDING or RUNNING) is the plan's concurrency",
  "(free 2, payg 5, starter 10, pro 25): over it the answer is 429 without Retry-After, its message giving the",
  "count and the maximum. With no model configured on the server every automation endpoint answers 403 naming",
  "the OSPREY_LLM_* variables to set. Vault items (use_vault): every credential_item_ids entry must be an enabled",
  "item of the caller's account, else 400 INVALID_INPUT with a detail per failing entry (credential_item_ids.<i>),",
  "before the run exists; the agent sees labels, domains and field names, and a value is typed into the browser",
  "only on a page whose registrable domain is one of the item's, never shown to the model or stored in steps,",
  "events, webhooks, artifacts or logs. Not yet available on this server (refused, never ignored): Browser Context",
  "Profiles (use_profile → 400 without profile_id, 404 with one) and proxies (proxy_config → 403).",
].join(" ");

const runErrors = errorResponses(400, 403, 413, 429);

export const runRoute = createRoute({
  method: "post",
  path: "/v1/automation/run",
  tags: ["agent"],
  summary: "Run the agent and wait for the result",
  description: `Blocking: answers once the run is terminal (COMPLETED, FAILED or CANCELLED), with HTTP 200 either way; a failure is in \`error\` (spec 7.2). Not cancellable. If the client disconnects the run still finishes; read it with GET /v1/runs/{id}. The wait lasts the run's duration budget plus 2 minutes; on the serverless deployment (AWS Lambda function URLs, whose invocations end at 15 minutes) at most 14.5 minutes. A run still going then is answered as it stands (status PENDING or RUNNING, HTTP 200): poll GET /v1/runs/{id}, or use /run-async with webhook_url for long runs. ${RUN_RULES}`,
  request: { body: jsonBody(RunRequestSchema) },
  responses: { 200: json(RunSchema, "The finished run."), ...runErrors },
});

export const runAsyncRoute = createRoute({
  method: "post",
  path: "/v1/automation/run-async",
  tags: ["agent"],
  summary: "Start a run and return its id at once",
  description: `Answers at once with the accepted run (status PENDING). Poll GET /v1/runs/{id}, or set webhook_url. Cancellable. ${RUN_RULES}`,
  request: { body: jsonBody(RunRequestSchema) },
  responses: { 200: json(RunAsyncResponseSchema, "The accepted run."), ...runErrors },
});

export const runSseRoute = createRoute({
  method: "post",
  path: "/v1/automation/run-sse",
  tags: ["agent"],
  summary: "Start a run and stream its events",
  description: [
    "A text/event-stream of `data: <json>` events (spec 6.1), each with type, run_id and timestamp: STARTED first,",
    "STREAMING_URL (streaming_url: the live view), PROGRESS (purpose: the agent's stated purpose of each step, with",
    "step, action and url), HEARTBEAT every 15 s, and COMPLETE last (status, result, error). No Last-Event-ID",
    "reconnection: after a disconnect poll GET /v1/runs/{run_id}. On the serverless deployment (AWS Lambda function",
    "URLs) a stream ends after at most 14.5 minutes without COMPLETE; the run goes on: poll GET /v1/runs/{run_id}.",
    "The run continues if the client goes away, and",
    `can be cancelled with POST /v1/runs/{id}/cancel. Errors before acceptance are ordinary JSON error responses. ${RUN_RULES}`,
  ].join(" "),
  request: { body: jsonBody(RunRequestSchema) },
  responses: {
    200: {
      description: "The event stream.",
      content: {
        "text/event-stream": {
          schema: z.string().openapi({ example: 'data: {"type":"STARTED","run_id":"run_…","timestamp":"…"}\n\n' }),
        },
      },
    },
    ...runErrors,
  },
});

export const runBatchRoute = createRoute({
  method: "post",
  path: "/v1/automation/run-batch",
  tags: ["agent"],
  summary: "Start up to 25 runs at once",
  description: [
    `Body: {runs: [1 to ${BATCH_MAX_RUNS} run requests]}. Batch-level failures use the standard error body: validation`,
    "(400, details paths start with runs.<index>), a missing capability or credits in any child (403), and the",
    "pending-run cap when not even the first child fits (429). Each accepted child runs like a /run-async run",
    "(cancellable, its own webhook); a child the pending-run cap refuses is reported in its slot with",
    "error.code RATE_LIMIT_EXCEEDED and run_id null. List a batch's runs with GET /v1/runs?batch_id=…",
  ].join(" "),
  request: { body: jsonBody(RunBatchRequestSchema) },
  responses: { 200: json(RunBatchResponseSchema, "One slot per requested run."), ...runErrors },
});

export const listRunsRoute = createRoute({
  method: "get",
  path: "/v1/runs",
  tags: ["agent"],
  summary: "List runs",
  description:
    "The calling key scope's runs, newest first, with the shared pagination (limit 1 to 1000, default 100; page ≥ 1). Filters: status, batch_id, created_after (inclusive), created_before (exclusive). Screenshots are never included.",
  request: { query: ListRunsQuery },
  responses: { 200: json(pageSchema(RunSchema, "RunPage"), "A page of runs."), ...errorResponses(400) },
});

export const getRunRoute = createRoute({
  method: "get",
  path: "/v1/runs/{id}",
  tags: ["agent"],
  summary: "Get a run",
  description:
    "Current or final state. ?screenshots=base64 adds each step's screenshot (runs with capture_config.screenshots). A run of another account or key scope is 404.",
  request: { params: RunIdParam, query: GetRunQuery },
  responses: { 200: json(RunSchema, "The run."), ...errorResponses(400, 404) },
});

export const cancelRunRoute = createRoute({
  method: "post",
  path: "/v1/runs/{id}/cancel",
  tags: ["agent"],
  summary: "Cancel a run",
  description:
    "For runs created through /run-async, /run-sse or /run-batch. A PENDING run ends CANCELLED at once; a RUNNING one is stopped by its worker (the answer waits up to 10 s for that, then returns the run with cancel_requested true). Cancelling a terminal run returns it unchanged. Runs created through /run are not cancellable: 400 INVALID_INPUT.",
  request: { params: RunIdParam },
  responses: { 200: json(RunSchema, "The run after the cancel request."), ...errorResponses(400, 404) },
});

export const listStepsRoute = createRoute({
  method: "get",
  path: "/v1/runs/{id}/steps",
  tags: ["agent"],
  summary: "The steps of a run",
  description: "Every agent step in order: purpose, action, outcome, page, timings and the paths of its captured artifacts.",
  request: { params: RunIdParam },
  responses: {
    200: json(z.object({ run_id: z.string(), steps: z.array(RunStepSchema) }).openapi("RunSteps"), "The steps."),
    ...errorResponses(404),
  },
});

const artifactRoute = (kind: "screenshot" | "html" | "elements", media: string, what: string) =>
  createRoute({
    method: "get",
    path: `/v1/runs/{id}/steps/{step}/${kind}`,
    tags: ["agent"],
    summary: `A step's ${what}`,
    description: `The ${what} captured after the step's action (capture_config.${kind === "screenshot" ? "screenshots" : kind}). 404 NOT_FOUND when the run, the step or the artifact does not exist.`,
    request: { params: StepParam },
    responses: {
      200: {
        description: what,
        content: { [media]: { schema: z.string().openapi({ format: media === "image/png" ? "binary" : undefined }) } },
      },
      ...errorResponses(400, 404),
    },
  });

export const stepScreenshotRoute = artifactRoute("screenshot", "image/png", "screenshot (PNG)");
export const stepHtmlRoute = artifactRoute("html", "text/html", "HTML snapshot");
export const stepElementsRoute = artifactRoute("elements", "application/json", "interactive element list (JSON)");

export const recordingRoute = createRoute({
  method: "get",
  path: "/v1/runs/{id}/recording",
  tags: ["agent"],
  summary: "A replayable recording of the run",
  description:
    "The run's replay (capture_config.recording): `video.frames`, the browser's screencast as JPEG frames (up to 2 per second, each with its offset in ms from the start and its path), and `steps`, every step with its timestamp, purpose, action, outcome, page and screenshot path, in order. Frames are listed once the run has ended. 404 when the run did not ask for a recording.",
  request: { params: RunIdParam },
  responses: { 200: json(z.record(z.string(), z.unknown()).openapi("RunRecording"), "The recording."), ...errorResponses(404) },
});
