import { Duration, Stack, type StackProps } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { OspreyDeployProps } from "../config.ts";

/**
 * The run queue (ARCHITECTURE.md, flow step 1-2): a standard queue whose messages are run ids, and
 * its dead-letter queue. The worker dead-letters a run itself after `maxReceives` receives (and
 * fails it, containers/local/run-stack.ts); the queue's redrive policy is the backstop one receive
 * later (functions/queue/sqs-queue.ts sqsRedrivePolicy), for a message no worker could even parse.
 * Alarms: anything in the dead-letter queue, and a run waiting longer than it should.
 */
export class QueueStack extends Stack {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly alarmTopic: Topic;
  readonly deadLetterAlarm: Alarm;
  readonly oldestRunAlarm: Alarm;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: the run queue, its dead-letter queue and their alarms" });
    const q = deploy.queue;
    this.deadLetterQueue = new Queue(this, "RunsDeadLetter", {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, "Runs", {
      visibilityTimeout: Duration.seconds(q.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(q.retentionDays),
      receiveMessageWaitTime: Duration.seconds(0),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: q.maxReceives + 1 },
    });
    this.alarmTopic = new Topic(this, "Alarms", { displayName: `${deploy.name} alarms` });
    if (deploy.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(deploy.alarmEmail));
    const notify = new SnsAction(this.alarmTopic);
    this.deadLetterAlarm = new Alarm(this, "DeadLetters", {
      alarmDescription: "Runs reached the dead-letter queue: the worker could not handle them (see its log for the run ids).",
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: "Maximum",
      }),
      threshold: q.deadLetterAlarmThreshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.oldestRunAlarm = new Alarm(this, "OldestRun", {
      alarmDescription: `A run has waited over ${q.oldestMessageAlarmSeconds} s for a worker: the containers are not keeping up (or not starting).`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: "Maximum" }),
      threshold: q.oldestMessageAlarmSeconds,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.deadLetterAlarm.addAlarmAction(notify);
    this.oldestRunAlarm.addAlarmAction(notify);
  }
}
