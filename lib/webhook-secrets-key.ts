import { Duration, RemovalPolicy } from 'aws-cdk-lib'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms'
import { Construct } from 'constructs'
import { ENV } from '../functions/env-names'
import type { ApiFunction } from './api-function'

/** What a route or consumer does with the key (functions/routes.ts, functions/consumers.ts `kms`). */
export type WebhookKeyUse = 'encrypt' | 'decrypt'

/** The one KMS action each use is granted: sealing a new secret, or opening one to sign. */
export const WEBHOOK_KEY_ACTIONS: Record<WebhookKeyUse, string> = {
  encrypt: 'kms:Encrypt',
  decrypt: 'kms:Decrypt',
}

/**
 * The encryption context every secret is sealed under (functions/runtime/secret-box.ts:
 * `{ endpointId }`), which IAM requires: a sealed secret opens only for the endpoint it was sealed
 * for, and the key seals nothing without it.
 */
export const WEBHOOK_KEY_CONTEXT = 'endpointId'

/** Days an ephemeral stage's key waits, once its stack is deleted, before KMS deletes it (the least KMS allows). */
export const EPHEMERAL_KEY_PENDING_DAYS = 7

export type WebhookSecretsKeyProps = {
  /** Ephemeral stages destroy the key with the stack (after its pending window); others keep it. */
  ephemeral: boolean
  stage: string
}

/**
 * The KMS key that seals webhook signing secrets in the webhooks table: symmetric, rotated
 * yearly by KMS (old versions still open what they sealed). A stage that keeps its data keeps its
 * key (RETAIN): a table restored or kept after the stack is gone would otherwise hold secrets no
 * one can open. An ephemeral stage schedules it for deletion with the stack, after 7 days.
 */
export class WebhookSecretsKey extends Construct {
  readonly key: Key

  constructor(scope: Construct, id: string, props: WebhookSecretsKeyProps) {
    super(scope, id)
    this.key = new Key(this, 'Key', {
      description: `Seals webhook signing secrets (virtual-share grants, ${props.stage})`,
      keySpec: KeySpec.SYMMETRIC_DEFAULT,
      keyUsage: KeyUsage.ENCRYPT_DECRYPT,
      enableKeyRotation: true,
      removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(props.ephemeral ? { pendingWindow: Duration.days(EPHEMERAL_KEY_PENDING_DAYS) } : {}),
    })
  }

  /**
   * Tells `fn` the key (WEBHOOK_KMS_KEY_ID, its ARN) and allows exactly the one action its spec
   * declares, on this key only, and only with the endpoint's id as the sole encryption context:
   * no GenerateDataKey, no ReEncrypt, no DescribeKey (what `key.grantEncrypt` would add).
   */
  allow(fn: ApiFunction, use: WebhookKeyUse) {
    fn.fn.addEnvironment(ENV.webhookKmsKeyId, this.key.keyArn)
    fn.role.addToPolicy(
      new PolicyStatement({
        actions: [WEBHOOK_KEY_ACTIONS[use]],
        resources: [this.key.keyArn],
        conditions: {
          // Only `endpointId` in the context (ForAllValues) and it present (ForAllValues alone
          // holds for an empty context too).
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [WEBHOOK_KEY_CONTEXT] },
          Null: { [`kms:EncryptionContext:${WEBHOOK_KEY_CONTEXT}`]: 'false' },
        },
      }),
    )
  }
}
