import { ECSClient } from "@aws-sdk/client-ecs";
import { silentLogger } from "../../functions/lib/logger.ts";
import { mulberry32 } from "../../functions/lib/prng.ts";
import { type EcsCapacity, ecsCapacity } from "../../functions/scaler/ecs-capacity.ts";
import { createScaler } from "../../functions/scaler/scaler.ts";
import { type Capacity, type ScalingSettings, utilizationPercent } from "../../functions/scaler/scaling-policy.ts";
import { type DoubleTask, type EcsDouble, startEcsDouble } from "../helpers/ecs-double.ts";

/**
 * `npm run bench -- scaler`: the browser containers' scaling, simulated. Runs arrive on a simulated
 * clock (a burst of 100, a trickle, a daily curve); the scaler decides with its real code and calls
 * the ECS API through the SDK, against the local ECS double (test/helpers/ecs-double.ts), whose
 * tasks take a launch delay to start and stop only when idle (scale-in protection). Application
 * Auto Scaling's target tracking is simulated the way AWS documents it (one datapoint a minute;
 * out after 3 above target, in after 15 below 90 % of it). Four strategies, one run:
 * - anchor: target tracking alone (it cannot scale from zero, so its floor is 1);
 * - fast+steady, warm floor 0 and 1: the scaler's nudge per enqueue and its minute pass, with
 *   target tracking for scale-in (the deployed design);
 * - RunTask: a standalone task per missing slot at each enqueue, each exiting after 5 idle minutes.
 * Figures: tasks started, wait for capacity (enqueue → a worker slot), idle task-minutes, billed
 * task-hours and their Fargate cost. Assumed: a task takes 35-60 s to start (launch and image pull),
 * a run 30-150 s, 2 run slots per task. Simulated time, not measured AWS behaviour.
 */

const SLOTS = 2;
const MAX_TASKS = 50;
/** Fargate Linux/ARM us-east-1 list price: 2 vCPU × $0.03238 + 4 GB × $0.00356 per hour. */
const TASK_HOUR_USD = 2 * 0.03238 + 4 * 0.00356;
const IDLE_EXIT_S = 300;

type StrategyName =
  | "anchor: target tracking only (floor 1)"
  | "fast+steady, floor 0"
  | "fast+steady, floor 1"
  | "RunTask per enqueue";
const STRATEGIES: Array<{ name: StrategyName; floor: number; fast: boolean; aas: boolean; runTask: boolean }> = [
  { name: "anchor: target tracking only (floor 1)", floor: 1, fast: false, aas: true, runTask: false },
  { name: "fast+steady, floor 0", floor: 0, fast: true, aas: true, runTask: false },
  { name: "fast+steady, floor 1", floor: 1, fast: true, aas: true, runTask: false },
  { name: "RunTask per enqueue", floor: 0, fast: false, aas: false, runTask: true },
];

/** A deterministic generator, so every strategy sees the same arrivals and durations. */
const rng = mulberry32;

interface Scenario {
  name: string;
  arrivals: number[];
  horizonS: number;
}

function scenarios(): Scenario[] {
  const r = rng(7);
  const trickle: number[] = [];
  for (let t = 0; t < 4 * 3600; ) {
    t += Math.round(-Math.log(1 - r()) * 600);
    if (t < 4 * 3600) trickle.push(t);
  }
  const daily: number[] = [];
  for (let s = 0; s < 86_400; s++) {
    const h = s / 3600;
    const wave = h >= 6 && h <= 22 ? Math.sin((Math.PI * (h - 6)) / 16) ** 2 : 0;
    const perMinute = 0.02 + 1.5 * wave;
    if (r() < perMinute / 60) daily.push(s);
  }
  return [
    { name: "burst (100 runs at once)", arrivals: Array.from({ length: 100 }, () => 0), horizonS: 3600 },
    { name: `trickle (${trickle.length} runs over 4 h, one per ~10 min)`, arrivals: trickle, horizonS: 4 * 3600 + 1800 },
    { name: `daily curve (${daily.length} runs over 24 h, peak 1.5/min at 14:00)`, arrivals: daily, horizonS: 86_400 + 1800 },
  ];
}

interface Result {
  started: number;
  waits: number[];
  idleTaskMin: number;
  billedTaskHours: number;
}

async function simulate(scenario: Scenario, strategy: (typeof STRATEGIES)[number]): Promise<Result> {
  const r = rng(11);
  const durations = scenario.arrivals.map(() => 30 + Math.floor(r() * 120));
  const startDelays = Array.from({ length: 10_000 }, () => 35_000 + Math.floor(r() * 25_000));
  let t = 0;
  const busy = new Map<string, number[]>(); // task → end times of its runs
  const double: EcsDouble = await startEcsDouble({
    cluster: "osprey",
    service: "osprey-browser",
    now: () => t * 1000,
    startDelayMs: (n) => startDelays[n % startDelays.length] ?? 45_000,
    isProtected: (task) => (busy.get(task.arn)?.length ?? 0) > 0,
    initialDesired: strategy.floor,
  });
  const client = new ECSClient({
    endpoint: double.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "sim", secretAccessKey: "sim" },
  });
  const ecs: EcsCapacity = ecsCapacity({
    client,
    cluster: "osprey",
    service: "osprey-browser",
    runTask: { taskDefinition: "osprey-browser:1", subnets: ["subnet-a"], securityGroups: ["sg-a"], assignPublicIp: true },
  });
  const settings: ScalingSettings = {
    runSlotsPerTask: SLOTS,
    sessionSlotsPerTask: 8,
    warmFloor: strategy.floor,
    maxTasks: MAX_TASKS,
  };
  const queue: Array<{ arrived: number; duration: number }> = [];
  let inFlight = 0;
  const scaler = createScaler({
    ecs,
    queue: { runs: async () => ({ queuedRuns: queue.length, runsInFlight: inFlight }) },
    sessions: null,
    settings,
    logger: silentLogger,
    service: "osprey-browser",
    emit: () => {},
  });
  const waits: number[] = [];
  const idleSince = new Map<string, number>();
  let idleTaskS = 0;
  const aas = { high: 0, low: 0, lastOut: -1e9, lastIn: -1e9 };
  let next = 0;
  const live = (at: number) => double.tasks.filter((x) => x.stoppedAt === null && x.runningAt <= at * 1000);

  const runTaskIfShort = async () => {
    const tasks = double.tasks.filter((x) => x.group === "standalone" && x.stoppedAt === null).length;
    const deficit = queue.length + inFlight - tasks * SLOTS;
    if (deficit > 0) await ecs.runTasks(Math.min(MAX_TASKS - tasks, Math.ceil(deficit / SLOTS)));
  };

  for (t = 0; t < scenario.horizonS; t++) {
    // Arrivals, each nudging the scaler (the agent function's asynchronous invoke).
    while (next < scenario.arrivals.length && (scenario.arrivals[next] ?? Infinity) <= t) {
      queue.push({ arrived: t, duration: durations[next] ?? 60 });
      next++;
      if (strategy.fast) await scaler.pass("enqueue");
      if (strategy.runTask) await runTaskIfShort();
    }
    if (t % 60 === 0) {
      if (strategy.fast) await scaler.pass("schedule");
      if (strategy.aas) {
        const capacity: Capacity = await ecs.describe();
        const metric = utilizationPercent(
          { queuedRuns: queue.length, runsInFlight: inFlight, openSessions: 0 },
          capacity,
          settings,
        );
        aas.high = metric > 100 ? aas.high + 1 : 0;
        aas.low = metric < 90 ? aas.low + 1 : 0;
        const want = Math.min(MAX_TASKS, Math.max(strategy.floor, Math.ceil((Math.max(1, capacity.running) * metric) / 100)));
        if (aas.high >= 3 && want > capacity.desired && t - aas.lastOut >= 60) {
          await ecs.setDesired(want);
          aas.lastOut = t;
        } else if (aas.low >= 15 && want < capacity.desired && t - aas.lastIn >= 300 && t - aas.lastOut >= 300) {
          await ecs.setDesired(want);
          aas.lastIn = t;
          aas.low = 0;
        }
      }
    }
    double.reconcile();
    // Runs end; queued runs take free slots on running tasks.
    for (const [arn, ends] of busy) {
      const left = ends.filter((e) => e > t);
      inFlight -= ends.length - left.length;
      busy.set(arn, left);
    }
    for (const task of live(t)) {
      const ends = busy.get(task.arn) ?? [];
      while (ends.length < SLOTS && queue.length > 0) {
        const run = queue.shift() as { arrived: number; duration: number };
        waits.push(t - run.arrived);
        ends.push(t + run.duration);
        inFlight++;
      }
      busy.set(task.arn, ends);
      if (ends.length === 0) {
        idleTaskS++;
        if (!idleSince.has(task.arn)) idleSince.set(task.arn, t);
        // A standalone task exits by itself once idle long enough.
        if (task.group === "standalone" && t - (idleSince.get(task.arn) ?? t) >= IDLE_EXIT_S) double.stopTask(task.arn);
      } else idleSince.delete(task.arn);
    }
  }
  const end = scenario.horizonS * 1000;
  const billedMs = double.tasks.reduce((s: number, x: DoubleTask) => s + ((x.stoppedAt ?? end) - x.createdAt), 0);
  const started = double.tasks.length;
  client.destroy();
  await double.close();
  return { started, waits, idleTaskMin: idleTaskS / 60, billedTaskHours: billedMs / 3_600_000 };
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

export async function scalerBench(): Promise<void> {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(
    `assumed: task start 35-60 s, run 30-150 s, ${SLOTS} run slots per task, Fargate ARM 2 vCPU/4 GB $${TASK_HOUR_USD.toFixed(4)}/h`,
  );
  for (const scenario of scenarios()) {
    out(`\n## ${scenario.name}`);
    out("| strategy | tasks started | wait p50 | wait p95 | wait max | idle task-min | billed task-h | Fargate $ |");
    out("|---|---|---|---|---|---|---|---|");
    for (const strategy of STRATEGIES) {
      const started = performance.now();
      const r = await simulate(scenario, strategy);
      const s = (n: number) => `${Math.round(n)} s`;
      out(
        `| ${strategy.name} | ${r.started} | ${s(pct(r.waits, 50))} | ${s(pct(r.waits, 95))} | ${s(Math.max(...r.waits))} | ${r.idleTaskMin.toFixed(0)} | ${r.billedTaskHours.toFixed(1)} | ${(r.billedTaskHours * TASK_HOUR_USD).toFixed(2)} |`,
      );
      if (r.waits.length !== scenario.arrivals.length)
        out(`  (only ${r.waits.length} of ${scenario.arrivals.length} runs started before the horizon)`);
      process.stderr.write(`  ${strategy.name}: simulated in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    }
  }
}
