import { GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";

/**
 * The run queue's share of the demand: messages waiting (ApproximateNumberOfMessages) and messages a
 * worker holds (ApproximateNumberOfMessagesNotVisible). GetQueueAttributes answers from SQS's own
 * counters at once, where the CloudWatch metrics of the same names arrive a minute or more late.
 */
export interface QueueDemand {
  runs(): Promise<{ queuedRuns: number; runsInFlight: number }>;
}

export function sqsQueueDemand(client: SQSClient, queueUrl: string): QueueDemand {
  return {
    async runs() {
      const out = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        }),
      );
      const n = (k: string) => Number(out.Attributes?.[k as keyof typeof out.Attributes] ?? 0) || 0;
      return { queuedRuns: n("ApproximateNumberOfMessages"), runsInFlight: n("ApproximateNumberOfMessagesNotVisible") };
    },
  };
}
