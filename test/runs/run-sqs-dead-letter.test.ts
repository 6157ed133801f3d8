import { type Message, SendMessageCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { runMessage } from "../../schema/runs.ts";
import { sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { loginSteps } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";
import { EMPTY, MAX_RECEIVES, until, useSqsSuite } from "./sqs-harness.ts";

/**
 * Spec 4.2 and 3.1 over the SQS adapter: what goes to the dead-letter queue, through the app, fauxqs
 * (the SQS emulator), an in-process worker and real Chromium: bad bodies, and over-received messages
 * (taken by a raw SQS consumer next to the worker), whose runs fail.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("SQS dead letters (fauxqs) on $driver", ({ open }) => {
  const s = useSqsSuite(open);

  it("malformed bodies go to the DLQ and the worker keeps running", async () => {
    s.startWorker();
    for (const bad of ["not json", JSON.stringify({ v: 1, type: "run.execute" })]) {
      await s.fx.client.send(new SendMessageCommand({ QueueUrl: s.q.queueUrl, MessageBody: bad }));
    }
    // Each look at the DLQ hides what it received for 60 s: collect across looks.
    const dead: Message[] = [];
    await until("both bad bodies in the DLQ", async () => {
      dead.push(...(await s.deadLetters()));
      return dead.length >= 2;
    });
    expect(dead).toHaveLength(2);
    const byBody = new Map(dead.map((m) => [m.Body, m.MessageAttributes?.dead_reason?.StringValue]));
    expect(byBody.get("not json")).toBe("invalid body: not JSON");
    expect(byBody.get(JSON.stringify({ v: 1, type: "run.execute" }))).toMatch(/^invalid body: /);
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
    expect(s.received).toEqual([]);

    // The same worker still runs runs.
    s.h.model.setScript(sequence(login, s.errors));
    const runId = await s.runAsync();
    const row = await s.h.ctx.runs.service.waitTerminal(runId, 60_000);
    expect(s.errors).toEqual([]);
    expect(row.status).toBe("COMPLETED");
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
  });

  it(`a message received more than ${MAX_RECEIVES} times is dead-lettered and its run fails SERVICE_BUSY`, async () => {
    const turns = s.h.model.requests.length;
    const runId = await s.runAsync();
    for (let n = 1; n <= MAX_RECEIVES; n++) {
      const m = await s.rawReceive(0);
      expect(m.Attributes?.ApproximateReceiveCount).toBe(String(n));
    }
    s.startWorker();
    const row = await s.h.ctx.runs.service.waitTerminal(runId, 30_000);
    expect(row.status).toBe("FAILED");
    const run = await s.getRun(runId);
    expect(run).toMatchObject({
      status: "FAILED",
      result: null,
      started_at: null,
      steps: 0,
      error: { code: "SERVICE_BUSY", message: expect.stringMatching(/max receives exceeded/) },
    });
    // The worker never got it: the adapter dead-lettered it on the fourth receive.
    expect(s.received).toEqual([]);
    expect(s.h.model.requests.length).toBe(turns);
    const dead = await s.deadLetters();
    expect(dead.map((m) => [m.Body, m.MessageAttributes?.dead_reason?.StringValue])).toEqual([
      [JSON.stringify(runMessage(runId)), "max receives exceeded"],
    ]);
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
  });
});
