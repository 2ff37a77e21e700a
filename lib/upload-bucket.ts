import { createHash } from 'node:crypto'
import { Aws, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib'
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam'
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  HttpMethods,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'
import { UPLOAD_KEEP_DAYS, UPLOAD_PREFIX } from '../functions/stores/uploads.store'
import { bucketRegionalOrigin } from './console-site'

/**
 * The upload bucket's name: fixed from the stack's name, account and region, so the console's CSP
 * (`connect-src`, in the distribution's headers policy) can name the bucket's endpoint while the
 * bucket's CORS rule names the distribution's origin: with a generated name the two would depend
 * on each other, a cycle CloudFormation refuses. At most 63 characters in every region; a long
 * stack name is shortened with a hash of it, so two stacks never share a name.
 */
export const uploadBucketName = (stack: Stack) => {
  if (Token.isUnresolved(stack.stackName)) {
    throw new Error('The upload bucket is named from the stack name, which must be known at synth')
  }
  const base = stack.stackName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
  const prefix =
    base.length <= 24
      ? base
      : `${base.slice(0, 17).replace(/-$/, '')}-${createHash('sha256').update(stack.stackName).digest('hex').slice(0, 6)}`
  return `${prefix}-uploads-${Aws.ACCOUNT_ID}-${Aws.REGION}`
}

export type UploadBucketProps = {
  /** uploadBucketName(stack). */
  bucketName: string
  /** The console's origin (`https://<domain>`): the only origin the CORS rule allows to POST. */
  consoleOrigin: string
  /** Where S3 writes the bucket's server access logs (the console's log bucket). */
  logBucket: IBucket
  /** An ephemeral stage empties the bucket when the stack goes (a custom resource does it). */
  ephemeral: boolean
}

/**
 * Send to many's CSV uploads (functions/http/routes/manage/grant-batch-upload.route.ts): the
 * console POSTs a file straight here with a presigned, size-limited POST, and CreateGrantBatch
 * reads it. Private (no public access, TLS only, SSE-S3), objects kept UPLOAD_KEEP_DAYS day under
 * `uploads/`, CORS for POST from the console's origin only. What is here is only ever a copy of a
 * file the issuer has: the bucket goes with the stack.
 */
export class UploadBucket extends Construct {
  readonly bucket: Bucket
  /** `https://<bucket>.s3.<region>.<suffix>`: where presigned POSTs go; the console's CSP names it. */
  readonly origin: string

  constructor(scope: Construct, id: string, props: UploadBucketProps) {
    super(scope, id)
    this.bucket = new Bucket(this, 'Files', {
      bucketName: props.bucketName,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'ExpireUploads',
          prefix: UPLOAD_PREFIX,
          expiration: Duration.days(UPLOAD_KEEP_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      cors: [
        {
          allowedMethods: [HttpMethods.POST],
          allowedOrigins: [props.consoleOrigin],
          maxAge: 3000,
        },
      ],
      serverAccessLogsBucket: props.logBucket,
      serverAccessLogsPrefix: 's3-uploads/',
      // A fixed name: a bucket kept after the stack would block its next deploy, so it goes with
      // the stack. Uploads last a day; an ephemeral stage empties it on the way out, another stage
      // (rarely deleted) without the extra custom resource: empty it, or wait a day, first.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: props.ephemeral,
    })
    this.origin = bucketRegionalOrigin(props.bucketName, Aws.REGION, Aws.URL_SUFFIX)
  }

  /** s3:PutObject under `uploads/`: what signing a POST policy for those keys needs. */
  allowPresign(role: IRole) {
    this.allow(role, 's3:PutObject')
  }

  /** s3:GetObject under `uploads/`, nothing else (no ListBucket: a missing key reads as denied). */
  allowRead(role: IRole) {
    this.allow(role, 's3:GetObject')
  }

  private allow(role: IRole, action: string) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [action],
        resources: [this.bucket.arnForObjects(`${UPLOAD_PREFIX}*`)],
      }),
    )
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/${UPLOAD_PREFIX}*]`,
      reason:
        "One action on the upload bucket's uploads/ prefix only: every upload has a key of its own (uploads/<issuer>/<program>/<random id>.csv), made per request.",
    })
  }
}
