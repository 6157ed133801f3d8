/**
 * The browser containers' scaling rules (issue [5 of 6]), free of any AWS call so that the Lambda,
 * the tests and the benchmark's simulation decide with the same code.
 *
 * Demand is what needs a slot now: runs waiting in the queue, runs in flight, open browser sessions.
 * A container has two kinds of slot, each its own limit in the worker: run slots
 * (OSPREY_WORKER_CONCURRENCY) and session slots (OSPREY_BROWSER_MAX_SESSIONS). The containers needed
 * are the larger of the two counts, never below the warm floor nor above the ceiling.
 *
 * Two paths write the ECS service's desired count:
 * - the fast path (`fastPath`) raises it at once when the demand outgrows it, and never lowers it:
 *   an enqueued run that finds no free slot starts a container within one API call;
 * - the steady path (Application Auto Scaling target tracking on `utilizationPercent`, defined in
 *   infra/) lowers it when containers have stood idle, and raises it too should a nudge be lost.
 * Lowering never stops a run: busy containers hold ECS task scale-in protection
 * (containers/cloud/task-protection.ts), so ECS picks idle ones.
 */

export interface ScalingSettings {
  /** Runs one container takes at once (OSPREY_WORKER_CONCURRENCY on the task). */
  runSlotsPerTask: number;
  /** Browser sessions one container holds at once (OSPREY_BROWSER_MAX_SESSIONS on the task). */
  sessionSlotsPerTask: number;
  /** Containers kept running with no demand at all (0: scale to zero). */
  warmFloor: number;
  /** The ceiling: never more containers than this, whatever the demand. */
  maxTasks: number;
}

export interface Demand {
  /** Runs waiting for a worker (SQS ApproximateNumberOfMessages). */
  queuedRuns: number;
  /** Runs a worker holds (SQS ApproximateNumberOfMessagesNotVisible). */
  runsInFlight: number;
  /** Browser sessions not ended; null when unknown (the database did not answer): then they are not counted. */
  openSessions: number | null;
}

export interface Capacity {
  /** The service's desired count: containers running or asked for. */
  desired: number;
  running: number;
  pending: number;
}

export type Decision =
  | { action: "none"; needed: number; reason: string }
  | { action: "raise"; from: number; to: number; needed: number; reason: string };

/** Checks the settings once, where they are parsed; a bad value names itself. */
export function scalingSettingsProblem(s: ScalingSettings): string | null {
  const int = (v: number, min: number) => Number.isInteger(v) && v >= min;
  if (!int(s.runSlotsPerTask, 1)) return "run slots per task must be an integer of at least 1";
  if (!int(s.sessionSlotsPerTask, 1)) return "session slots per task must be an integer of at least 1";
  if (!int(s.warmFloor, 0)) return "the warm floor must be an integer of at least 0";
  if (!int(s.maxTasks, 1)) return "the maximum number of tasks must be an integer of at least 1";
  if (s.warmFloor > s.maxTasks) return "the warm floor must not exceed the maximum number of tasks";
  return null;
}

/** Containers the demand needs, within [warmFloor, maxTasks]. */
export function tasksNeeded(demand: Demand, s: ScalingSettings): number {
  const forRuns = Math.ceil(Math.max(0, demand.queuedRuns + demand.runsInFlight) / s.runSlotsPerTask);
  const forSessions = Math.ceil(Math.max(0, demand.openSessions ?? 0) / s.sessionSlotsPerTask);
  return Math.min(s.maxTasks, Math.max(s.warmFloor, forRuns, forSessions));
}

/**
 * The fast path: raise the desired count to what the demand needs when it is below it. The target
 * is absolute, so concurrent invocations (a burst nudges once per run) agree instead of adding up,
 * and a repeated call changes nothing.
 */
export function fastPath(demand: Demand, capacity: Capacity, s: ScalingSettings): Decision {
  const needed = tasksNeeded(demand, s);
  if (needed <= capacity.desired) {
    const free = capacity.desired * s.runSlotsPerTask - demand.queuedRuns - demand.runsInFlight;
    return { action: "none", needed, reason: `desired ${capacity.desired} covers the demand (${free} free run slots)` };
  }
  return {
    action: "raise",
    from: capacity.desired,
    to: needed,
    needed,
    reason: `${demand.queuedRuns} queued + ${demand.runsInFlight} running runs and ${demand.openSessions ?? "?"} sessions need ${needed} containers`,
  };
}

/**
 * The steady path's metric: the demand as a percentage of what the running containers hold (100 =
 * every slot of the busier kind taken). Target tracking at 100 % keeps the count where the demand
 * fits; below it for the scale-in period, it lowers the count. With no container running and some
 * demand it reads as though one were running, so the metric says "more" rather than nothing.
 */
export function utilizationPercent(demand: Demand, capacity: Capacity, s: ScalingSettings): number {
  const runs = (demand.queuedRuns + demand.runsInFlight) / s.runSlotsPerTask;
  const sessions = (demand.openSessions ?? 0) / s.sessionSlotsPerTask;
  const load = Math.max(runs, sessions);
  if (load === 0) return 0;
  return Math.round((load / Math.max(1, capacity.running)) * 1000) / 10;
}
