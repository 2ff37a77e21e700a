import * as z from 'zod/mini'
import {
  DELIVERY_EVENTS,
  GRANT_STATES,
  REJECTION_REASONS,
} from '../functions/domain/grant-lifecycle'
import { GrantRequestSchema, LIMITS } from '../functions/domain/grant-request.schema'
import { DECIMAL_AMOUNT } from '../functions/domain/share-value'
import { TestTransitionBody } from '../functions/domain/test-transition.schema'
import { jsonSchema, pagedList, schemaRef } from './openapi-parts'

/**
 * Part of openapi.json: the grant and the program as the integrator API shows them, from the zod
 * schemas the handlers validate with (cli/smoke-answers.ts checks real answers against them).
 */
export const GrantSchema = z.object({
  id: z.string().check(z.regex(/^gr_[0-9a-z]{26}$/)),
  object: z.literal('grant'),
  programId: z.string().check(z.regex(/^prg_[0-9a-z]{26}$/)),
  mode: z.enum(['TEST', 'LIVE']),
  recipient: z.object({
    email: z.email(),
    name: z.optional(z.string()),
  }),
  reason: z.string(),
  amount: z.int().check(z.positive(), z.maximum(LIMITS.maxAmount)),
  status: z.literal('reserved'),
  createdAt: z.iso.datetime(),
})

export const ProgramSchema = z.object({
  id: z.string().check(z.regex(/^prg_[0-9a-z]{26}$/)),
  object: z.literal('program'),
  mode: z.enum(['TEST', 'LIVE']),
  name: z.string(),
  status: z.enum(['active', 'paused', 'closed']),
  pool: z.nullable(z.int().check(z.positive())),
  issued: z.int().check(z.nonnegative()),
  remaining: z.nullable(z.int().check(z.nonnegative())),
  tokensCount: z.int().check(z.nonnegative()),
  active: z.boolean(),
  // The value of a share (issue 32): null while none is set.
  tokenValue: z.nullable(z.string().check(z.regex(DECIMAL_AMOUNT))),
  tokenValueCurrency: z.nullable(z.string().check(z.regex(/^[A-Z]{3}$/))),
  tokenValueCalculatedDate: z.nullable(z.iso.date()),
})

/** A history line (functions/domain/grant-lifecycle.ts), as the integrator API shows it. */
export const HISTORY_ENTRY = {
  type: 'object',
  description:
    'One transition or delivery event, written in the same transaction as the change it records.',
  properties: {
    at: { type: 'string', format: 'date-time' },
    event: {
      type: 'string',
      enum: ['transition', 'delivery', 'address'],
      description:
        "`transition`: the state moved to `state`; `delivery`: something happened to the offer e-mail (`delivery`); `address`: the issuer corrected the recipient's address (earlier links stop working).",
    },
    state: { type: 'string', enum: [...GRANT_STATES] },
    reason: { type: 'string', enum: [...REJECTION_REASONS] },
    delivery: { type: 'string', enum: [...DELIVERY_EVENTS] },
    actor: {
      type: 'string',
      description:
        'Who: `recipient`, `key:<keyId>` (an API key of the issuer), `person` (a member of the issuer, never named here), `operator`, `service` (expiry, delivery) or `simulation` (TEST mode).',
      examples: ['key:key_0h7d3k9m2n4p6q8r1s3t5v7w9x', 'recipient', 'person'],
    },
    detail: { type: 'string', maxLength: 200 },
  },
  required: ['at', 'event', 'actor'],
  additionalProperties: false,
}

/** What a grant's life adds to the resource after creation (functions/http/grant-life-resource.ts). */
export const GRANT_LIFE_PROPERTIES = {
  status: {
    type: 'string',
    enum: [...GRANT_STATES],
    description:
      '`reserved` (created; the offer is on its way), `offered` (the recipient identified and is eligible), `accepted` (final), `rejected` (see `rejectionReason`), `expired` (the offer window passed), `canceled` (by the issuer or an integrator).',
  },
  rejectionReason: {
    description: 'Why the grant was rejected; null unless `status` is `rejected`.',
    anyOf: [{ type: 'string', enum: [...REJECTION_REASONS] }, { type: 'null' }],
  },
  expiresAt: {
    type: 'string',
    format: 'date-time',
    description: 'The end of the offer window: after it, the grant can no longer be accepted.',
  },
  delivery: {
    type: 'string',
    enum: ['pending', 'sent', 'test_inbox', 'failed'],
    description:
      "The offer e-mail: `pending` until it is handed over, `sent` (LIVE), `test_inbox` (TEST: written to the issuer's TEST inbox, never mailed), `failed` after a bounce or complaint.",
  },
}

/** The grant resource's own properties, as the 201's schema has them (status widened). */
export const grantLifeSchema = (history: boolean) => {
  const base = jsonSchema(GrantSchema, 'output') as {
    properties: Record<string, unknown>
    required: string[]
  }
  return {
    ...base,
    properties: {
      ...base.properties,
      ...GRANT_LIFE_PROPERTIES,
      ...(history
        ? {
            history: {
              type: 'array',
              description: 'Every transition and delivery event after creation, oldest first.',
              // Inline, not a $ref: a reader of GrantDetail alone has all of it.
              items: HISTORY_ENTRY,
            },
          }
        : {}),
    },
    required: [
      ...base.required,
      'rejectionReason',
      'expiresAt',
      'delivery',
      ...(history ? ['history'] : []),
    ],
  }
}

/** The schema says what `""` and `null` mean; the runtime schema carries no prose (bundle size). */
const describeName = (schema: Record<string, unknown>) => {
  const recipient = (schema.properties as Record<string, { properties: Record<string, object> }>)
    .recipient
  if (recipient?.properties.name) {
    recipient.properties.name = {
      ...recipient.properties.name,
      description:
        'Optional. "" and null mean "no name": the grant is stored and answered without one (integrations written for the reference product send them when the name is unknown).',
    }
  }
  return schema
}

/** The integrator grant API's schemas (the document puts Problem between the two groups). */
export const grantSchemas = () => ({
  GrantRequest: describeName(jsonSchema(GrantRequestSchema, 'input')),
  Grant: jsonSchema(GrantSchema, 'output'),
  GrantList: pagedList(schemaRef('GrantListItem'), {
    description: 'Pass as `cursor` for the next page; null on the last page.',
    anyOf: [{ type: 'string' }, { type: 'null' }],
  }),
  Program: jsonSchema(ProgramSchema, 'output'),
})

export const grantLifeSchemas = () => ({
  GrantListItem: grantLifeSchema(false),
  GrantDetail: grantLifeSchema(true),
  TestTransitionRequest: jsonSchema(TestTransitionBody, 'input'),
})
