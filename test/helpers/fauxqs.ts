import { randomBytes } from "node:crypto";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { sqsRedrivePolicy } from "../../functions/queue/sqs-queue.ts";

/**
 * The fauxqs SQS emulator, in process on a random port, with an SDK client pointed at it. Like AWS
 * it honours visibility timeouts, per-message delays, long polls and a queue's RedrivePolicy (a
 * message received more than maxReceiveCount times moves to the dead-letter queue on the next receive).
 */
export interface Fauxqs {
  server: FauxqsServer;
  client: SQSClient;
  /** Creates a queue and its DLQ through the SQS API (CreateQueue), names made unique per call. */
  createQueue(opts?: {
    name?: string;
    /** The adapter's maxReceives: the redrive policy dead-letters one receive later (see sqsRedrivePolicy). */
    maxReceives?: number;
    visibilityTimeoutS?: number;
  }): Promise<FauxqsQueue>;
  stop(): Promise<void>;
}

export interface FauxqsQueue {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
  deadLetterQueueArn: string;
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }));
  const arn = out.Attributes?.QueueArn;
  if (!arn) throw new Error(`no QueueArn for ${queueUrl}`);
  return arn;
}

export async function startFauxqsServer(): Promise<Fauxqs> {
  const server = await startFauxqs({ port: 0, logger: false });
  const client = new SQSClient({
    endpoint: server.address,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  return {
    server,
    client,
    async createQueue({ name = `q${randomBytes(4).toString("hex")}`, maxReceives = 5, visibilityTimeoutS = 30 } = {}) {
      const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
      const deadLetterQueueUrl = dlq.QueueUrl ?? "";
      const deadLetterQueueArn = await queueArn(client, deadLetterQueueUrl);
      const main = await client.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: String(visibilityTimeoutS),
            RedrivePolicy: sqsRedrivePolicy(deadLetterQueueArn, maxReceives),
          },
        }),
      );
      const queueUrl = main.QueueUrl ?? "";
      return { queueUrl, queueArn: await queueArn(client, queueUrl), deadLetterQueueUrl, deadLetterQueueArn };
    },
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}
