import type { RunQueue } from "../queue/queue.ts";

/**
 * The fast path's trigger on the agent function: after a run's id is sent to the queue, the scaler
 * function is invoked asynchronously (InvocationType Event: Lambda queues the event and answers at
 * once, ~20-40 ms), and it raises the browser service when the run finds no free slot. A failed
 * nudge only logs: the scaler's one-minute pass catches up.
 */
export type CapacityNudge = () => Promise<void>;

/** An asynchronous invoke of the scaler, its client made on the first nudge (the Lambda runtime ships the SDK). */
export function lambdaNudge(
  functionName: string,
  region: string,
  onError: (err: unknown) => void,
  /** Tests point the client at a local double. */
  client_?: { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } },
  /** The event sent: the agent's enqueue, or the front door's `{trigger: "session", pending: 1}`. */
  event: Record<string, unknown> = { trigger: "enqueue" },
): CapacityNudge {
  let client: Promise<{ send(payload: string): Promise<unknown> }> | null = null;
  const get = () => {
    client ??= import("@aws-sdk/client-lambda").then(({ LambdaClient, InvokeCommand }) => {
      const c = new LambdaClient({ region, ...(client_ ?? {}) });
      return {
        send: (payload: string) =>
          c.send(new InvokeCommand({ FunctionName: functionName, InvocationType: "Event", Payload: Buffer.from(payload) })),
      };
    });
    return client;
  };
  return async () => {
    try {
      await (await get()).send(JSON.stringify(event));
    } catch (err) {
      onError(err);
    }
  };
}

/** The queue, nudging the scaler after each send that succeeded (a refused send starts nothing). */
export function withCapacityNudge(queue: RunQueue, nudge: CapacityNudge | null): RunQueue {
  if (!nudge) return queue;
  return {
    ...queue,
    async send(body, opts) {
      await queue.send(body, opts);
      await nudge();
    },
  };
}
