import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { runMessage } from "../../schema/runs.ts";
import { sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { loginSteps } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";
import { EMPTY, until, useSqsSuite } from "./sqs-harness.ts";

/**
 * Spec 4.2 and 3.1 over the SQS adapter: whole runs through the app, fauxqs (the SQS emulator), an
 * in-process worker and real Chromium. The worker's lease is the visibility timeout (extended with
 * ChangeMessageVisibility), its ack the delete; a redelivery after a consumer died and a duplicate
 * for a finished run are exercised with a raw SQS consumer next to the worker.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("runs over SQS (fauxqs) on $driver", ({ open }) => {
  const s = useSqsSuite(open);

  it("a /run-async run completes through SQS: received, heartbeated with ChangeMessageVisibility, deleted", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const w = s.startWorker();
    const runId = await s.runAsync();
    const row = await s.h.ctx.runs.service.waitTerminal(runId, 60_000);
    expect(s.errors).toEqual([]);
    expect(row.status).toBe("COMPLETED");
    expect(await s.getRun(runId)).toMatchObject({
      status: "COMPLETED",
      result: { greeting: "Welcome, Ada", account: 4711 },
      error: null,
      steps: 4,
    });
    expect(row.attempts).toBe(1);
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
    await until("the worker to finish", async () => w.inflight() === 0);

    expect(s.received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([[runId, 1]]);
    const names = s.commands.map((c) => c.name);
    expect(names.filter((n) => n === "SendMessageCommand")).toHaveLength(1);
    expect(s.commands.find((c) => c.name === "SendMessageCommand")?.input.MessageBody).toBe(JSON.stringify(runMessage(runId)));
    // The lease: received with the worker's 5 s visibility, then extended while the agent worked.
    const receive = s.commands.find((c) => c.name === "ReceiveMessageCommand");
    expect(receive?.input.VisibilityTimeout).toBe(5);
    const receipt = s.received[0]?.receipt;
    const heartbeats = s.commands.filter((c) => c.name === "ChangeMessageVisibilityCommand");
    expect(heartbeats.length).toBeGreaterThan(0);
    for (const hb of heartbeats) expect(hb.input).toMatchObject({ ReceiptHandle: receipt, VisibilityTimeout: 5 });
    const deletes = s.commands.filter((c) => c.name === "DeleteMessageCommand");
    expect(deletes.map((d) => d.input.ReceiptHandle)).toEqual([receipt]);
    // The delete comes after the last heartbeat.
    expect(names.lastIndexOf("DeleteMessageCommand")).toBeGreaterThan(names.lastIndexOf("ChangeMessageVisibilityCommand"));
    expect(await s.deadLetters()).toEqual([]);
  });

  it("a message taken by a consumer that died before starting the run comes back and the run completes", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const runId = await s.runAsync();
    const taken = await s.rawReceive(1);
    expect(JSON.parse(taken.Body ?? "")).toEqual(runMessage(runId));
    expect(taken.Attributes?.ApproximateReceiveCount).toBe("1");
    expect(await s.attributes(s.q.queueUrl)).toMatchObject({ visible: 0, notVisible: 1 });
    // The dead consumer never marked the run.
    expect(await s.runRow(runId)).toMatchObject({ status: "PENDING", attempts: 0 });

    s.startWorker();
    const row = await s.h.ctx.runs.service.waitTerminal(runId, 60_000);
    expect(s.errors).toEqual([]);
    expect(row.status).toBe("COMPLETED");
    expect(row.attempts).toBe(1);
    expect(s.received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([[runId, 2]]);
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
    expect(await s.deadLetters()).toEqual([]);
  });

  it("a duplicate message for a terminal run is acknowledged and changes nothing", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    s.startWorker();
    const runId = await s.runAsync();
    expect((await s.h.ctx.runs.service.waitTerminal(runId, 60_000)).status).toBe("COMPLETED");
    await s.drained(s.q.queueUrl);
    const before = await s.runRow(runId);
    const getBefore = await s.getRun(runId);
    const turns = s.h.model.requests.length;

    await s.fx.client.send(new SendMessageCommand({ QueueUrl: s.q.queueUrl, MessageBody: JSON.stringify(runMessage(runId)) }));
    await until("the duplicate to be received", async () => s.received.length === 2);
    expect(s.received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([
      [runId, 1],
      [runId, 1],
    ]);
    expect(await s.drained(s.q.queueUrl)).toEqual(EMPTY);
    expect(await s.runRow(runId)).toEqual(before);
    expect(await s.getRun(runId)).toEqual(getBefore);
    expect(s.h.model.requests.length).toBe(turns);
    expect(await s.deadLetters()).toEqual([]);
  });
});
