import { Duration, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import { BlockPublicAccess, Bucket, BucketEncryption, type LifecycleRule, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";
import { type OspreyDeployProps, S3_PREFIXES } from "../config.ts";

/**
 * The artifacts bucket. Keys are `<OSPREY_S3_PREFIX>/<blob key>` (functions/storage/s3-blob-store.ts),
 * and each writer gets its own prefix so that lifecycle rules and IAM can tell them apart:
 * - `fetch-cache/<sha256>`: fetch cache bodies (the fetch function). A cache row whose body has
 *   expired reads as a miss (functions/fetch/response-cache.ts), so expiring them is safe.
 * - `runs/…`: what the containers write and the agent function reads: step artifacts and recording
 *   frames (content-addressed `<sha256>`), `live_<run>` (the newest live-view frame) and `rec_<run>`
 *   (a recording's frame list) (functions/runs/run-artifacts.ts).
 */
export class StorageStack extends Stack {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: the artifacts bucket" });
    const s = deploy.storage;
    const rules: LifecycleRule[] = [
      { id: "fetch-cache", prefix: `${S3_PREFIXES.fetchCache}/`, expiration: Duration.days(s.fetchCacheDays) },
      { id: "live-frames", prefix: `${S3_PREFIXES.runs}/live_`, expiration: Duration.days(s.liveFrameDays) },
      { id: "recordings", prefix: `${S3_PREFIXES.runs}/rec_`, expiration: Duration.days(s.recordingDays) },
      { id: "incomplete-uploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ];
    if (s.runArtifactDays > 0)
      rules.push({ id: "run-artifacts", prefix: `${S3_PREFIXES.runs}/`, expiration: Duration.days(s.runArtifactDays) });
    this.bucket = new Bucket(this, "Artifacts", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: rules,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
