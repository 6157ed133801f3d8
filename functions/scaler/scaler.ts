import type { Logger } from "../lib/logger.ts";
import type { EcsCapacity } from "./ecs-capacity.ts";
import type { QueueDemand } from "./queue-demand.ts";
import {
  type Capacity,
  type Decision,
  type Demand,
  fastPath,
  type ScalingSettings,
  utilizationPercent,
} from "./scaling-policy.ts";

/**
 * One pass of the scaler: read the demand (queue counters, open sessions) and the service's
 * capacity, raise the desired count when the demand outgrows it (the fast path), and, on the
 * scheduled pass, publish the utilization metric the steady path tracks. The Lambda runs one pass
 * per invocation: per enqueued run (the agent function's nudge), per session request that found no
 * container (the browser front door's nudge, functions/edge/front-door.ts) and once a minute (the
 * schedule).
 *
 * A session being asked for is not in the database yet (the container that would create it is not
 * running), so the front door's nudge says how many are pending and the pass adds them to the open
 * sessions: from zero, that raises the desired count to at least 1.
 */

export type Trigger = "enqueue" | "schedule" | "session";

export interface ScalerDeps {
  ecs: EcsCapacity;
  queue: QueueDemand;
  /** Open browser sessions (the database); null: sessions are not a demand signal here. */
  sessions: { openSessions(): Promise<number> } | null;
  settings: ScalingSettings;
  logger: Logger;
  /** The metric's dimension value (the ECS service name). */
  service: string;
  /** Where the metric line goes (stdout in Lambda, where CloudWatch reads embedded metrics). */
  emit: (line: string) => void;
  now?: () => number;
}

export interface Pass {
  trigger: Trigger;
  demand: Demand;
  capacity: Capacity;
  decision: Decision;
  utilization: number;
}

export const METRIC_NAMESPACE = "Osprey";
export const UTILIZATION_METRIC = "BrowserTaskUtilization";

/** A CloudWatch embedded-metric-format line: the metric is extracted from the log, no API call, no IAM. */
export function utilizationMetricLine(service: string, value: number, at: number): string {
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [
        { Namespace: METRIC_NAMESPACE, Dimensions: [["ServiceName"]], Metrics: [{ Name: UTILIZATION_METRIC, Unit: "Percent" }] },
      ],
    },
    ServiceName: service,
    [UTILIZATION_METRIC]: value,
  });
}

export function createScaler(deps: ScalerDeps) {
  const now = deps.now ?? Date.now;
  const openSessions = async (): Promise<number | null> => {
    if (!deps.sessions) return null;
    try {
      return await deps.sessions.openSessions();
    } catch (err) {
      // Runs still scale on the queue alone; sessions are counted again on the next pass.
      deps.logger.warn("scaler: open sessions unknown (database)", { error: err });
      return null;
    }
  };
  // Passes run one at a time. Two overlapping passes could otherwise finish out of order: one
  // that read the queue before a burst would write its smaller target after one that read it
  // during the burst, lowering the count the fast path must never lower. Across instances the
  // function's reserved concurrency of 1 (infra/) gives the same order.
  let last: Promise<unknown> = Promise.resolve();
  const serially = <T>(f: () => Promise<T>): Promise<T> => {
    const next = last.then(f, f);
    last = next.catch(() => {});
    return next;
  };
  return {
    /** One pass; `pendingSessions`: sessions asked for that no container holds yet (the front door's nudge). */
    pass: (trigger: Trigger, pendingSessions = 0): Promise<Pass> => serially(() => onePass(trigger, pendingSessions)),
  };

  async function onePass(trigger: Trigger, pendingSessions: number): Promise<Pass> {
    const [runs, sessions, capacity] = await Promise.all([deps.queue.runs(), openSessions(), deps.ecs.describe()]);
    // Unknown open sessions (the database did not answer) still count the pending ones.
    const pending = Math.max(0, pendingSessions);
    const demand: Demand = { ...runs, openSessions: sessions === null && pending === 0 ? null : (sessions ?? 0) + pending };
    const decision = fastPath(demand, capacity, deps.settings);
    if (decision.action === "raise") {
      await deps.ecs.setDesired(decision.to);
      deps.logger.info("scaler: desired count raised", {
        trigger,
        from: decision.from,
        to: decision.to,
        reason: decision.reason,
      });
    } else {
      deps.logger.debug("scaler: no change", { trigger, reason: decision.reason });
    }
    const utilization = utilizationPercent(demand, capacity, deps.settings);
    // One datapoint a minute (the scheduled pass): target tracking averages per minute, and the
    // nudges of a burst would weigh that minute by how many runs arrived in it.
    if (trigger === "schedule") deps.emit(`${utilizationMetricLine(deps.service, utilization, now())}\n`);
    return { trigger, demand, capacity, decision, utilization };
  }
}

export type Scaler = ReturnType<typeof createScaler>;
