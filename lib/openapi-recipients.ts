import { GRANT_STATES, REJECTION_REASONS } from '../functions/domain/grant-lifecycle'
import {
  LINKS_ANSWER,
  RecipientAcceptBody,
  RecipientDeclineBody,
  RecipientLinksBody,
  RecipientOfferBody,
  recipientIdentifyBody,
} from '../functions/domain/recipient-request.schema'
import {
  COUNTRY,
  ID,
  jsonBody,
  jsonContent,
  jsonSchema,
  MODE,
  problems,
  REQUEST_ID,
  termsSchema,
} from './openapi-parts'
import { ACCEPTED_VALUE, TOKEN_VALUE_PROPERTIES, TOKEN_VALUE_REQUIRED } from './openapi-values'

/**
 * Part of openapi.json: the recipient's page (public; the link's token in the body) and the
 * balance an integrator reads for an address.
 */
const BALANCE_SCHEMA = {
  type: 'object',
  description:
    "A recipient's standing in a program, in the shape a client written for the reference product reads (`type`, `person`, `tokenAmount`, `participationStatus`), plus `accepted`, `pending` and `grantCount`. The mapping is in docs/api.md (A recipient's balance).",
  properties: {
    object: { type: 'string', const: 'balance' },
    type: { type: 'string', const: 'person', description: 'Always `person`.' },
    programId: ID.program,
    person: {
      type: 'object',
      properties: {
        firstName: {
          description:
            "The name the recipient identified with (else the grant's `recipient.name`) up to its last space; a one-word name is all `firstName`; null when no name is known.",
          anyOf: [{ type: 'string' }, { type: 'null' }],
        },
        lastName: {
          description: 'The last word of that name; null for a one-word name or none.',
          anyOf: [{ type: 'string' }, { type: 'null' }],
        },
        email: { type: 'string', format: 'email' },
        dateOfBirth: {
          type: 'null',
          description:
            'Always null: the date of birth is never kept (only whether the recipient met the minimum age).',
        },
        addressCountryCode: {
          description:
            'The country the recipient gave (ISO 3166-1 alpha-2) when the program limits countries; else null.',
          anyOf: [COUNTRY, { type: 'null' }],
        },
      },
      required: ['firstName', 'lastName', 'email', 'dateOfBirth', 'addressCountryCode'],
      additionalProperties: false,
    },
    tokenAmount: {
      type: 'integer',
      minimum: 0,
      description: 'Shares the recipient holds: those of accepted grants (= `accepted`).',
    },
    participationStatus: {
      type: 'string',
      enum: [...GRANT_STATES, 'none'],
      description:
        '`accepted` if any grant is accepted, else `offered`, else `reserved` if one is; else the state of the newest grant (`rejected`, `expired`, `canceled`); `none` without any grant in the program.',
    },
    accepted: { type: 'integer', minimum: 0, description: 'Shares of accepted grants.' },
    pending: {
      type: 'integer',
      minimum: 0,
      description: 'Shares of reserved and offered grants: counted as issued, not yet accepted.',
    },
    grantCount: {
      type: 'integer',
      minimum: 0,
      description: "The recipient's grants in the program, in any state.",
    },
    // The value of a share and of the accepted shares (issue 32, lib/openapi-values.ts).
    ...TOKEN_VALUE_PROPERTIES,
    acceptedValue: ACCEPTED_VALUE,
  },
  required: [
    'object',
    'type',
    'programId',
    'person',
    'tokenAmount',
    'participationStatus',
    'accepted',
    'pending',
    'grantCount',
    ...TOKEN_VALUE_REQUIRED,
    'acceptedValue',
  ],
  additionalProperties: false,
}

/** One grant on the recipient's page (functions/core/grant-life.ts, RecipientGrantView). */
const RECIPIENT_GRANT = {
  type: 'object',
  properties: {
    grantId: ID.grant,
    programId: ID.program,
    programName: { type: 'string' },
    description: { type: 'string' },
    amount: { type: 'integer', minimum: 1 },
    reason: { type: 'string' },
    state: { type: 'string', enum: [...GRANT_STATES] },
    rejectionReason: { type: 'string', enum: [...REJECTION_REASONS] },
    expiresAt: { type: 'string', format: 'date-time' },
    mode: MODE,
    fields: {
      type: 'object',
      description: "What identifying asks for: the program's eligibility rules.",
      properties: {
        name: { type: 'boolean', const: true },
        dateOfBirth: { type: 'boolean' },
        country: { type: 'boolean' },
      },
      required: ['name', 'dateOfBirth', 'country'],
      additionalProperties: false,
    },
    countries: { type: 'array', items: COUNTRY },
    minAge: { type: 'integer' },
    terms: termsSchema(0, 'The Terms of Virtual Shares: their version, and their text or a link.'),
    identified: { type: 'boolean' },
    acceptedAt: { type: 'string', format: 'date-time' },
  },
  required: [
    'grantId',
    'programId',
    'programName',
    'amount',
    'reason',
    'state',
    'expiresAt',
    'mode',
    'fields',
    'identified',
  ],
}

const RECIPIENT_VIEW = {
  type: 'object',
  description:
    "The grants this link's address holds at the link's issuer that are still open, and the one just decided.",
  properties: {
    email: { type: 'string', format: 'email' },
    grants: { type: 'array', items: { $ref: '#/components/schemas/RecipientGrant' } },
  },
  required: ['email', 'grants'],
  additionalProperties: false,
}

/** The recipient's public routes: no key, no sign-in; the link token in the body. */
const recipientRoute = (
  operationId: string,
  summary: string,
  description: string,
  body: string,
  answer: { status: string; description: string; ref: string },
  statuses: number[],
) => ({
  post: {
    operationId,
    tags: ['Recipients'],
    summary,
    description,
    security: [],
    requestBody: jsonBody(body),
    responses: {
      [answer.status]: {
        description: answer.description,
        headers: {
          ...REQUEST_ID,
          'Cache-Control': {
            description: "Always `no-store`: the answer holds the recipient's own grants.",
            schema: { type: 'string', const: 'no-store' },
          },
        },
        content: jsonContent(answer.ref),
      },
      ...problems(statuses),
    },
  },
})

/** The identify body with the formats its rules check (recipient-fields.ts), for readers. */
const recipientIdentifySchema = () => {
  const schema = jsonSchema(
    recipientIdentifyBody(() => 0),
    'input',
  ) as { properties: Record<string, Record<string, unknown>> }
  const props = schema.properties
  props.name = { ...props.name, description: 'As on an ID: trimmed; no control characters.' }
  props.dateOfBirth = {
    ...props.dateOfBirth,
    format: 'date',
    description:
      'YYYY-MM-DD, in the past; required when the program has a minimum age. Used for the decision and never kept.',
  }
  props.country = {
    ...props.country,
    pattern: '^[A-Za-z]{2}$',
    description:
      'ISO 3166-1 alpha-2 (any case); required when the program limits countries. Kept with the grant.',
  }
  return schema
}

const withEmailFormat = (schema: Record<string, unknown>) => {
  const props = schema.properties as Record<string, Record<string, unknown>>
  props.email = { ...props.email, format: 'email' }
  return schema
}

/** A step on the page (identify, accept, decline): the page after it, and what it may refuse. */
const STEP_ANSWER: [{ status: string; description: string; ref: string }, number[]] = [
  { status: '200', description: 'The page after the change.', ref: 'RecipientView' },
  [400, 404, 409, 413, 415, 429, 500, 503],
]

export const recipientPaths = {
  '/recipient/offer': recipientRoute(
    'recipientOffer',
    "Open an offer link: the recipient's grants",
    "What the recipient's page shows for the link's token (from the link's fragment `#t=`, sent in the body so it reaches no URL or log): the grants this address holds at the link's issuer that are still open, with each program's description, terms and the fields identifying needs. Changes nothing (mail scanners open links). An unknown, used or expired token: 404 `offer_link_invalid`, one answer for all. Attempts are limited per token (429).",
    'RecipientOfferRequest',
    { status: '200', description: "The recipient's open grants.", ref: 'RecipientView' },
    [400, 404, 413, 415, 429, 500, 503],
  ),
  '/recipient/identify': recipientRoute(
    'recipientIdentify',
    'Identify for a grant',
    "The recipient's name, and the date of birth or country when the program's rules need them (400 names a missing one). Eligible: the grant becomes `offered`; not: `rejected` (`ineligible_age` or `ineligible_country`) and its shares go back. Only the result is kept (age at least N: yes/no; the country), never the date of birth. Identifying again once offered answers as it is.",
    'RecipientIdentifyRequest',
    ...STEP_ANSWER,
  ),
  '/recipient/accept': recipientRoute(
    'recipientAccept',
    'Accept an offered grant',
    'Accepts the Terms of Virtual Shares at `termsVersion` (the version the page showed; another is 400) and the grant: `accepted`, final. Before identifying: 409 `offer_not_identified`; after the offer window: 409 `offer_expired`; already decided: 409 `grant_state_conflict` or `grant_accepted`.',
    'RecipientAcceptRequest',
    ...STEP_ANSWER,
  ),
  '/recipient/decline': recipientRoute(
    'recipientDecline',
    'Decline a grant',
    'The grant becomes `rejected` (`declined`) and its shares go back to the pool.',
    'RecipientDeclineRequest',
    ...STEP_ANSWER,
  ),
  '/recipient/links': recipientRoute(
    'recipientLinks',
    'Ask for a new link',
    "For every issuer with an open grant for this address, the newest one's offer e-mail is sent again with a new link (at most once per 10 minutes, and only while the grant holds fewer than 5 valid links, so asking never makes a link the recipient holds stop working). Always the same 202 and body, whatever the address holds, so it tells nobody which addresses hold offers: the request is queued before anything is read, and the look-up happens after the answer. Past the limit per address (5 an hour) nothing more is sent, and the answer is still the same.",
    'RecipientLinksRequest',
    { status: '202', description: 'Always this answer.', ref: 'LinksAnswer' },
    [400, 413, 415, 500, 503],
  ),
}

export const recipientSchemas = () => ({
  Balance: BALANCE_SCHEMA,
  RecipientOfferRequest: jsonSchema(RecipientOfferBody, 'input'),
  RecipientIdentifyRequest: recipientIdentifySchema(),
  RecipientAcceptRequest: jsonSchema(RecipientAcceptBody, 'input'),
  RecipientDeclineRequest: jsonSchema(RecipientDeclineBody, 'input'),
  RecipientLinksRequest: withEmailFormat(jsonSchema(RecipientLinksBody, 'input')),
  RecipientGrant: RECIPIENT_GRANT,
  RecipientView: RECIPIENT_VIEW,
  LinksAnswer: {
    type: 'object',
    properties: { message: { type: 'string', const: LINKS_ANSWER.message } },
    required: ['message'],
    additionalProperties: false,
  },
})
