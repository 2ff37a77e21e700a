import { CONSUMERS, type ConsumerSpec } from '../../functions/consumers'
import { ENV } from '../../functions/env-names'
import { ROUTES, type Route } from '../../functions/routes'
import {
  EPHEMERAL_KEY_PENDING_DAYS,
  WEBHOOK_KEY_ACTIONS,
  WEBHOOK_KEY_CONTEXT,
} from '../../lib/webhook-secrets-key'
import {
  type CfnResource,
  type CfnTemplate,
  resource,
  resourcesOfType,
  rolePolicies,
  synth,
} from '../support/synth'

// A plain `cdk deploy`, and an ephemeral stage.
const prod = synth()
const dev = synth({ stage: 'dev', ephemeral: 'true' })

type Statement = {
  Effect: string
  Action: string | string[]
  Resource: unknown
  Condition?: unknown
}

/** Every function of functions/routes.ts and functions/consumers.ts with what it does with the key. */
const specs: { fnId: string; kms: 'encrypt' | 'decrypt' | undefined }[] = [
  ...(ROUTES as readonly Route[]).map((r) => ({ fnId: `${r.id}Function`, kms: r.kms })),
  ...(CONSUMERS as readonly ConsumerSpec[]).map((c) => ({ fnId: `${c.id}Function`, kms: c.kms })),
]

const keyOf = (t: CfnTemplate) => {
  const keys = resourcesOfType(t, 'AWS::KMS::Key')
  expect(keys.map(([id]) => id)).toEqual([expect.stringMatching(/^WebhookSecretsKey[0-9A-F]{8}$/)])
  return keys[0] as [string, CfnResource]
}
/** The statements of every policy attached to a function's role. */
const statementsOf = (t: CfnTemplate, fnId: string): Statement[] => {
  const roleId = (resource(t, fnId).Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
  return rolePolicies(t)
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
}
const mentionsKms = (s: Statement) => [s.Action].flat().some((a) => a.startsWith('kms:'))

describe('the webhook secrets key', () => {
  it('is one symmetric encrypt/decrypt key, rotated by KMS, kept when a stage that keeps its data is deleted', () => {
    const [, key] = keyOf(prod.json)
    expect(key.Properties).toMatchObject({
      KeySpec: 'SYMMETRIC_DEFAULT',
      KeyUsage: 'ENCRYPT_DECRYPT',
      EnableKeyRotation: true,
    })
    // Secrets sealed with it must stay readable as long as the webhooks table is kept (RETAIN).
    expect(key.DeletionPolicy).toBe('Retain')
    expect(key.UpdateReplacePolicy).toBe('Retain')
    expect(key.Properties.PendingWindowInDays).toBeUndefined()
  })

  it('is scheduled for deletion with an ephemeral stage, after the shortest pending window', () => {
    const [, key] = keyOf(dev.json)
    expect(key.DeletionPolicy).toBe('Delete')
    expect(key.Properties.PendingWindowInDays).toBe(EPHEMERAL_KEY_PENDING_DAYS)
    expect(EPHEMERAL_KEY_PENDING_DAYS).toBe(7)
    expect(key.Properties.EnableKeyRotation).toBe(true)
  })

  it('lets its key policy delegate to IAM only (the account), naming no service or other principal', () => {
    const [, key] = keyOf(prod.json)
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] })
      .Statement
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'kms:*',
        Principal: {
          AWS: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
            ],
          },
        },
        Resource: '*',
      },
    ])
  })

  it('tells exactly the functions whose spec says `kms` the key’s ARN (WEBHOOK_KMS_KEY_ID)', () => {
    const [keyId] = keyOf(prod.json)
    // The routes that seal a new secret, and the sender that opens them to sign.
    expect(specs.filter((s) => s.kms === 'encrypt').map((s) => s.fnId)).toEqual(
      expect.arrayContaining(['CreateWebhookEndpointFunction', 'RotateWebhookSecretFunction']),
    )
    expect(specs.filter((s) => s.kms === 'decrypt').map((s) => s.fnId)).toEqual(
      expect.arrayContaining(['WebhookSenderFunction']),
    )
    for (const { fnId, kms } of specs) {
      const variables = (
        resource(prod.json, fnId).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables
      expect({ fnId, key: variables[ENV.webhookKmsKeyId] }).toEqual({
        fnId,
        key: kms ? { 'Fn::GetAtt': [keyId, 'Arn'] } : undefined,
      })
    }
  })

  it('grants each of them its one action on that key with the endpoint id as the sole encryption context, statement by statement, and no other function anything of KMS', () => {
    for (const t of [prod.json, dev.json]) {
      const [keyId] = keyOf(t)
      for (const { fnId, kms } of specs) {
        const onKms = statementsOf(t, fnId).filter(mentionsKms)
        expect({ fnId, onKms }).toEqual({
          fnId,
          onKms: kms
            ? [
                {
                  Effect: 'Allow',
                  Action: WEBHOOK_KEY_ACTIONS[kms],
                  Resource: { 'Fn::GetAtt': [keyId, 'Arn'] },
                  Condition: {
                    'ForAllValues:StringEquals': {
                      'kms:EncryptionContextKeys': [WEBHOOK_KEY_CONTEXT],
                    },
                    Null: { 'kms:EncryptionContext:endpointId': 'false' },
                  },
                },
              ]
            : [],
        })
      }
      expect(WEBHOOK_KEY_ACTIONS).toEqual({ encrypt: 'kms:Encrypt', decrypt: 'kms:Decrypt' })
      expect(WEBHOOK_KEY_CONTEXT).toBe('endpointId')
      // Nowhere in the stack a wider grant: no data keys, no re-encryption, no wildcard.
      const policies = JSON.stringify(rolePolicies(t))
      expect(policies).not.toMatch(/kms:(\*|GenerateDataKey|ReEncrypt|Describe|CreateGrant)/)
      // Every role's statement on KMS is one of those above.
      const kmsStatements = rolePolicies(t).flatMap(([, p]) =>
        (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.filter(mentionsKms),
      )
      expect(kmsStatements).toHaveLength(specs.filter((s) => s.kms).length)
    }
  })

  it('gives no function of a stage the local sealing key or loopback receivers', () => {
    for (const t of [prod.json, dev.json]) {
      for (const [id, fn] of resourcesOfType(t, 'AWS::Lambda::Function')) {
        const variables = Object.keys(
          (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
            ?.Variables ?? {},
        )
        expect({ id, variables }).toEqual({
          id,
          variables: expect.not.arrayContaining([
            ENV.webhookLocalSecretKey,
            ENV.webhookAllowLoopback,
          ]),
        })
      }
    }
  })
})
