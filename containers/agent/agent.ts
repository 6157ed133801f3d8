import { isDnsFailure } from "../../functions/net/address-policy.ts";
import type { OutputSchema } from "../../functions/runs/output-schema.ts";
import { type ActionResult, executeAction, openUrl } from "./actions.ts";
import type { AgentDeps, AgentHooks, AgentOutcome, AgentStep, AgentTask } from "./agent.types.ts";
import { DEFAULT_STATE_SCOPE, readState, stepCaptures } from "./capture-step.ts";
import { credentialFiller } from "./credential-fill.ts";
import { finishRun } from "./done.ts";
import { ModelError, type ModelResponse, type ToolCall, type Usage } from "./model/types.ts";
import { abortable, DeadlineReached, failed, outcomeOf, taskFailed, timedOut } from "./outcome.ts";
import type { PageState } from "./page-state/index.ts";
import { PageWatch } from "./page-watch.ts";
import { History } from "./prompt.ts";
import { SecretScrubber } from "./secret-scrub.ts";
import { type Action, agentTools, parseToolCall, READ_ONLY_ACTIONS } from "./tools.ts";

/**
 * The automation loop: open the start URL, then per step read the page, ask the model for one tool
 * call, carry it out (verified, see actions.ts), report the step to the hooks, until the model
 * calls `done` or a budget, the caller or the site ends the run. Run-level failures come back as
 * outcomes; runAgent does not throw for them.
 *
 * Strict mode (`task.mode === "strict"`) ends the run with TASK_FAILED right after the first step
 * (its step is still reported) in which a page action
 *   1. failed its verification (stale or unknown index, covered or hidden element, text that did
 *      not take, missing option, failed navigation…), or
 *   2. moved the active tab to another origin although the action was not navigate, go_back or
 *      switch_tab (a click that leaves the site, a redirect, a new tab on another site), or
 *   3. made the page open a JavaScript dialog, or
 *   4. made the browser refuse a request under the address policy.
 * Malformed tool calls are not page states and are handled as in standard mode.
 *
 * Credentials (deps.credentials): fill_credential types vault values the model never sees
 * (credential-fill.ts). Every value revealed goes to the run's SecretScrubber, which replaces it
 * wherever it could leave the run: the page states and tool results the model reads (and, as a last
 * guard, each whole request to it), the step records and the outcome. The actions themselves work
 * on the page state as read.
 */

/** Consecutive unusable model replies (broken tool JSON) that end the run. */
const MAX_INVALID_REPLIES = 3;
const MAX_OUTPUT_TOKENS = 4096;
const START_NAV_TIMEOUT_MS = 30_000;
/** Actions after which a change of origin is expected, not a surprise (strict mode rule 2). */
const MOVES: ReadonlySet<Action["name"]> = new Set(["navigate", "go_back", "switch_tab"]);

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};
const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0 });

export async function runAgent(task: AgentTask, deps: AgentDeps, hooks: AgentHooks): Promise<AgentOutcome> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(hooks.signal.reason ?? "cancelled");
  hooks.signal.addEventListener("abort", onAbort, { once: true });
  if (hooks.signal.aborted) onAbort();
  const timer = setTimeout(() => ctl.abort(new DeadlineReached()), Math.max(0, task.maxDurationMs));
  const watch = new PageWatch(deps.logger);
  const scrubber = new SecretScrubber();
  try {
    return scrubber.scrubDeep(await new AgentRun(task, deps, hooks, ctl.signal, watch, scrubber).run());
  } catch (err) {
    const outcome = outcomeOf(err, {
      signal: hooks.signal,
      runSignal: ctl.signal,
      session: deps.session,
      logger: deps.logger,
      maxDurationMs: task.maxDurationMs,
    });
    return scrubber.scrubDeep(outcome);
  } finally {
    clearTimeout(timer);
    hooks.signal.removeEventListener("abort", onAbort);
    watch.dispose();
  }
}

class AgentRun {
  private readonly task: AgentTask;
  private readonly deps: AgentDeps;
  private readonly hooks: AgentHooks;
  private readonly signal: AbortSignal;
  private readonly watch: PageWatch;
  private readonly scrubber: SecretScrubber;
  private readonly fillCredential: ReturnType<typeof credentialFiller> | undefined;
  private readonly history: History;
  private readonly now: () => number;
  private readonly started: number;
  /** Model turns that count against max_steps (steps, and replies that could not be parsed). */
  private steps = 0;
  /** Steps reported to the hooks (numbered 1, 2, … without gaps). */
  private reported = 0;
  private usage = zero();
  private acted = false;
  private reasked = false;
  private invalidStreak = 0;
  private reminded = false;
  private state!: PageState;

  constructor(
    task: AgentTask,
    deps: AgentDeps,
    hooks: AgentHooks,
    signal: AbortSignal,
    watch: PageWatch,
    scrubber: SecretScrubber,
  ) {
    this.task = task;
    this.deps = deps;
    this.hooks = hooks;
    this.signal = signal;
    this.watch = watch;
    this.scrubber = scrubber;
    this.now = deps.now ?? Date.now;
    const kit = deps.credentials?.items.length ? deps.credentials : undefined;
    this.fillCredential = kit ? credentialFiller({ kit, scrubber, now: this.now }) : undefined;
    this.history = new History(task, kit?.items);
    this.started = this.now();
  }

  private get session() {
    return this.deps.session;
  }

  /** What page states cover unless the model asks for the whole page. */
  private get scope() {
    return this.task.stateScope ?? DEFAULT_STATE_SCOPE;
  }

  private remainingMs(): number {
    return this.task.maxDurationMs - (this.now() - this.started);
  }

  async run(): Promise<AgentOutcome> {
    const { session, task } = this;
    this.watch.sync(session);
    const page = session.activePage();
    const seenBlocked = session.blocked().length;
    const opened = await abortable(
      openUrl(session, page, task.url, Math.min(START_NAV_TIMEOUT_MS, this.remainingMs())),
      this.signal,
    );
    if (!opened.ok) {
      // The target itself (or where it redirects) is refused by the address policy: the spec's
      // "target blocked by policy", not a goal the agent failed at.
      const refused = session.blocked().slice(seenBlocked)[0];
      // A host name that does not resolve is refused by the same guard, but it is a navigation
      // failure (spec 7.2 TASK_FAILED), not a target blocked by policy.
      if (refused && isDnsFailure(refused.reason))
        return taskFailed(`The start URL could not be opened: its host name does not resolve (${refused.reason}).`);
      if (refused)
        return failed("CONTENT_POLICY_VIOLATION", `The target is blocked by policy: ${refused.url} (${refused.reason}).`);
      return taskFailed(`The start URL could not be opened. ${opened.message}`);
    }
    const blocked = await this.watch.siteBlocked(page);
    if (blocked) return failed("SITE_BLOCKED", `The site blocked the automation: ${blocked}.`);
    this.state = await abortable(readState(page, task.vision, this.scope), this.signal);
    this.pushState();

    while (this.steps < task.maxSteps) {
      if (this.remainingMs() <= 0) return timedOut(task.maxDurationMs);
      if (session.crashed()) throw new Error("browser crashed");
      const t0 = Date.now();
      let res: ModelResponse;
      try {
        res = await this.deps.model.complete(
          {
            messages: this.scrubber.messages(this.history.messages),
            tools: agentTools(task.outputSchema, {
              credentials: this.fillCredential !== undefined,
              readPage: this.scope === "viewport",
            }),
            toolChoice: "required",
            maxTokens: MAX_OUTPUT_TOKENS,
          },
          this.signal,
        );
      } catch (err) {
        if (!(err instanceof ModelError && err.kind === "invalid_response") || this.signal.aborted) throw err;
        // A reply that could not be parsed counts as a step (it used the model) without a step event.
        this.steps += 1;
        if (++this.invalidStreak >= MAX_INVALID_REPLIES)
          return taskFailed("The model kept answering with tool calls that could not be parsed.");
        const raw = err.raw ? ` It was: ${err.raw.slice(0, 300)}` : "";
        this.history.push({
          role: "user",
          text: `Your last reply could not be used (${err.message}).${raw} Call exactly one tool with valid JSON arguments.`,
        });
        continue;
      }
      const modelMs = Date.now() - t0;
      this.usage.inputTokens += res.usage.inputTokens;
      this.usage.outputTokens += res.usage.outputTokens;
      this.invalidStreak = 0;
      const [call, ...rest] = res.toolCalls;
      if (!call) {
        if (this.reminded) return taskFailed("The model stopped without calling a tool or finishing with done.");
        this.reminded = true;
        if (res.text.trim()) this.history.push({ role: "assistant", text: res.text });
        this.history.push({
          role: "user",
          text: "Reply with exactly one tool call. When the goal is reached (or cannot be), call done.",
        });
        continue;
      }
      this.history.push({ role: "assistant", text: res.text, toolCalls: res.toolCalls });
      const outcome = await this.step(call, rest, modelMs);
      if (outcome) return outcome;
    }
    return failed("MAX_STEPS_EXCEEDED", `The goal was not reached within ${task.maxSteps} steps.`);
  }

  private pushState(): void {
    const pages = this.session.pages();
    const notes = {
      step: this.steps + 1,
      maxSteps: this.task.maxSteps,
      secondsLeft: this.remainingMs() / 1000,
      tabs: pages.map((p) => ({ url: p.url(), title: p === this.session.activePage() ? this.state.title : "" })),
      activeTab: pages.indexOf(this.session.activePage()),
      dialogs: this.watch.drainDialogs(),
    };
    const state = this.scrubber.state(this.state);
    this.history.pushState(state, this.scrubber.scrubDeep(notes), this.task.vision ? state.screenshot : undefined);
  }

  /** Carries out one tool call; returns the outcome when the run ends with it. */
  private async step(call: ToolCall, ignored: ToolCall[], modelMs: number): Promise<AgentOutcome | null> {
    const { session, task } = this;
    this.steps += 1;
    const parsed = parseToolCall(call);
    const args: Record<string, unknown> =
      typeof call.arguments === "object" && call.arguments !== null ? { ...(call.arguments as Record<string, unknown>) } : {};
    const before = {
      origin: origin(session.activePage().url()),
      blocked: session.blocked().length,
      dialogs: this.watch.dialogCount,
    };
    const t1 = Date.now();
    let result: ActionResult;
    let end: AgentOutcome | null = null;
    if (!parsed.ok) result = { ok: false, message: `${parsed.message}. Check the tool's parameters and call it again.` };
    else if (parsed.action.name === "done") {
      [result, end] = finishRun(parsed.action, this.task.outputSchema as OutputSchema | undefined, this.reasked);
      if (!result.ok && !end) this.reasked = true;
    } else {
      if (!READ_ONLY_ACTIONS.has(parsed.action.name) && !this.acted) {
        await this.hooks.beforeFirstAction();
        this.acted = true;
      }
      result = await abortable(
        executeAction(session, this.state, parsed.action, {
          extractor: this.deps.extractor,
          fillCredential: this.fillCredential,
        }),
        this.signal,
      );
    }
    result = { ...result, message: this.scrubber.scrub(result.message) };
    const actionMs = Date.now() - t1;
    // What was typed into a secret field is not kept in the step record (the model's message says "the secret value").
    if (result.secret && "text" in args) args.text = "[secret]";
    this.history.push({ role: "tool", callId: call.id, text: result.message, ...(result.ok ? {} : { isError: true }) });
    for (const extra of ignored) {
      this.history.push({
        role: "tool",
        callId: extra.id,
        text: "Ignored: only the first tool call of a reply is carried out.",
        isError: true,
      });
    }

    this.watch.sync(session);
    const page = session.activePage();
    const t2 = Date.now();
    if (!parsed.ok || parsed.action.name !== "done") {
      // read_page widens the next state to the whole page; the one after is scoped again.
      const scope = parsed.ok && parsed.action.name === "read_page" ? "page" : this.scope;
      this.state = await abortable(readState(page, task.vision, scope), this.signal);
    }
    const shown = this.scrubber.state(this.state);
    const captures = await abortable(stepCaptures(page, shown, task.capture), this.signal);
    const step: AgentStep = {
      step: ++this.reported,
      purpose: this.scrubber.scrub(parsed.purpose),
      action: { name: parsed.ok ? parsed.action.name : call.name, args: this.scrubber.scrubDeep(args) },
      ok: result.ok,
      message: result.message,
      url: shown.url,
      title: shown.title,
      ...captures,
      ...(captures.html === undefined ? {} : { html: this.scrubber.scrub(captures.html) }),
      modelMs,
      actionMs,
      captureMs: Date.now() - t2,
      usage: this.usage,
    };
    this.usage = zero();
    await this.hooks.onStep(step);
    if (end) return end;

    const blocked = await this.watch.siteBlocked(page);
    if (blocked) return failed("SITE_BLOCKED", `The site blocked the automation: ${blocked}.`);
    if (task.mode === "strict" && parsed.ok) {
      const why = this.strictViolation(parsed.action, result, before);
      if (why) return taskFailed(`Strict mode stopped the run at step ${this.reported}: ${why}`);
    }
    this.pushState();
    return null;
  }

  /** The strict-mode rule (see the top of this file) that the last step broke, or null. */
  private strictViolation(
    action: Action,
    result: { ok: boolean; message: string },
    before: { origin: string; blocked: number; dialogs: number },
  ) {
    if (action.name === "done") return null;
    if (!result.ok) return `the ${action.name} action failed: ${result.message}`;
    const now = origin(this.session.activePage().url());
    if (now !== before.origin && !MOVES.has(action.name))
      return `the ${action.name} action unexpectedly led to another site (${now}).`;
    if (this.watch.dialogCount > before.dialogs) return "the page opened a JavaScript dialog.";
    const refused = this.session.blocked().slice(before.blocked)[0];
    if (refused) return `the browser refused a request to ${refused.url} (${refused.reason}).`;
    return null;
  }
}
