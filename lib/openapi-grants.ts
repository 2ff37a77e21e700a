import { GRANT_STATES } from '../functions/domain/grant-lifecycle'
import { GRANT_PAGE } from '../functions/domain/grant-list-query'
import { LIMITS } from '../functions/domain/grant-request.schema'
import {
  jsonContent,
  ok,
  pageParameter,
  problems,
  query,
  RATE_LIMIT_HEADERS,
  REQUEST_ID,
} from './openapi-parts'
import { TOKEN_VALUE_EXAMPLE } from './openapi-values'

/**
 * Part of openapi.json: the integrators' routes (`x-api-key`): grant, read, list, cancel and move
 * a TEST grant, read a program, a recipient's balance.
 */
/** A grant as the integrator's API shows it; the management API's example extends it. */
export const GRANT_EXAMPLE = {
  id: 'gr_5k2x9q8w7e6r5t4y3v2j1h0p9a',
  object: 'grant',
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  mode: 'TEST',
  recipient: { email: 'ann@example.com', name: 'Ann' },
  reason: 'Referral bonus',
  amount: 1,
  status: 'reserved',
  createdAt: '2026-11-26T09:30:00.000Z',
}

const { status: _reserved, ...GRANT_FIELDS } = GRANT_EXAMPLE

const GRANT_DETAIL_EXAMPLE = {
  ...GRANT_FIELDS,
  status: 'canceled',
  rejectionReason: null,
  expiresAt: '2026-12-26T09:30:00.000Z',
  delivery: 'test_inbox',
  history: [
    {
      at: '2026-11-26T09:30:01.200Z',
      event: 'delivery',
      delivery: 'test_inbox',
      actor: 'service',
    },
    {
      at: '2026-11-26T10:02:13.000Z',
      event: 'transition',
      state: 'canceled',
      actor: 'key:key_0h7d3k9m2n4p6q8r1s3t5v7w9x',
    },
  ],
}

const GrantIdParameters = [
  { $ref: '#/components/parameters/ProgramId' },
  { $ref: '#/components/parameters/GrantId' },
]

export const grantPaths = {
  '/programs/{programId}/grant-tokens': {
    post: {
      operationId: 'grantTokens',
      tags: ['Grants'],
      summary: 'Grant virtual shares to a recipient',
      description:
        'Creates a grant in the program. With an Idempotency-Key, a retry of the same request replays the original 201 (Idempotent-Replayed: true) and writes nothing; the same key with a different request is 422.',
      parameters: [
        { $ref: '#/components/parameters/ProgramId' },
        { $ref: '#/components/parameters/IdempotencyKey' },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/GrantRequest' },
            example: {
              recipient: { email: 'ann@example.com' },
              reason: 'Referral bonus',
              amount: 1,
            },
          },
        },
      },
      responses: {
        '201': {
          description: 'The grant was made (or, with Idempotent-Replayed: true, had been made).',
          headers: {
            Location: { $ref: '#/components/headers/Location' },
            ...REQUEST_ID,
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
          },
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/GrantDetail' } },
          },
        },
        ...problems([400, 401, 403, 404, 409, 413, 415, 422, 500, 503]),
      },
    },
  },
  '/programs/{programId}/grants/{grantId}': {
    get: {
      operationId: 'getGrant',
      tags: ['Grants'],
      summary: 'Read a grant, its state and history',
      description:
        'The grant as its 201 showed it, with where it is in its life: `status`, `rejectionReason`, `expiresAt` (the end of the offer window), `delivery` (the offer e-mail) and `history` (every transition and delivery event, oldest first; a member of the issuer is shown as `person`, never by name). Use it to check a grant after a timeout.',
      parameters: GrantIdParameters,
      responses: {
        '200': ok('The grant.', 'GrantDetail', GRANT_DETAIL_EXAMPLE, RATE_LIMIT_HEADERS),
        ...problems([401, 403, 404, 500, 503]),
      },
    },
  },
  '/programs/{programId}/grants/{grantId}/cancel': {
    post: {
      operationId: 'cancelGrant',
      tags: ['Grants'],
      summary: 'Cancel a grant',
      description:
        "Cancels a `reserved` or `offered` grant: its shares go back to the program's pool in the same transaction, and its history records `canceled` by this key. Idempotent: a canceled grant answers 200 as it is and nothing is written. An accepted grant is final (409 `grant_accepted`); a rejected or expired one is 409 `grant_state_conflict`. Another issuer's grant, another mode's or another program's answers 404 `grant_not_found`, like a missing one. No body is read.",
      parameters: GrantIdParameters,
      responses: {
        '200': ok('The grant, canceled.', 'GrantDetail', GRANT_DETAIL_EXAMPLE, RATE_LIMIT_HEADERS),
        ...problems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/programs/{programId}/grants/{grantId}/test-transition': {
    post: {
      operationId: 'testTransitionGrant',
      tags: ['Grants'],
      summary: 'Move a TEST grant to a state (TEST only)',
      description:
        "Moves a TEST grant to `to` through the legal steps (`reserved` -> `offered` -> `accepted`; `rejected` with `reason`, default `declined`; `expired`; `canceled`), as the recipient, the clock or the issuer would, each step on its history with the actor `simulation`; shares go back for `rejected`, `expired` and `canceled`. Moving it where it is already: 200, nothing written. A LIVE key is 409 `test_mode_only`; a move the grant's state does not allow (out of `accepted`, or `ineligible_*` once `offered`) is 409 `grant_state_conflict` or `grant_accepted`. Magic recipient addresses (`accept+...@`, `decline+...@`, `ineligible+...@`, `bounce+...@`) drive a TEST grant without this call (docs/recipients.md).",
      parameters: GrantIdParameters,
      requestBody: {
        required: true,
        content: jsonContent('TestTransitionRequest', { to: 'rejected', reason: 'declined' }),
      },
      responses: {
        '200': ok('The grant, moved.', 'GrantDetail', undefined, RATE_LIMIT_HEADERS),
        ...problems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/programs/{programId}/recipients/{email}/balance': {
    get: {
      operationId: 'getRecipientBalance',
      tags: ['Recipients'],
      summary: "A recipient's balance in a program",
      description:
        'The shares the recipient (named by their e-mail address, URL-encoded in the path) holds in the program (`tokenAmount`: accepted grants) and has pending (`pending`: reserved and offered), in the shape a client written for the reference product reads, with our own fields beside it: the value of a share in the program (`tokenValue`, as on the program) and `acceptedValue`, what the accepted shares are worth at it, computed exactly. An address without grants in the program answers 200 with zeros and `participationStatus: none`. The same key rules as reading a program. Access logs record the route, never the path with the address.',
      parameters: [
        { $ref: '#/components/parameters/ProgramId' },
        {
          name: 'email',
          in: 'path',
          required: true,
          description:
            "The recipient's e-mail address, URL-encoded (`ann%40example.com`); trimmed and lower-cased as `recipient.email` is.",
          schema: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
        },
      ],
      responses: {
        '200': {
          ...ok('The balance.', 'Balance', {
            object: 'balance',
            type: 'person',
            programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
            person: {
              firstName: 'Ann',
              lastName: 'Smith',
              email: 'ann@example.com',
              dateOfBirth: null,
              addressCountryCode: 'DE',
            },
            tokenAmount: 3,
            participationStatus: 'accepted',
            accepted: 3,
            pending: 1,
            grantCount: 3,
            ...TOKEN_VALUE_EXAMPLE,
            acceptedValue: '37.50',
          }),
          headers: {
            ...REQUEST_ID,
            ...RATE_LIMIT_HEADERS,
            'Cache-Control': {
              description: 'Always `no-store`.',
              schema: { type: 'string', const: 'no-store' },
            },
          },
        },
        ...problems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  '/programs/{programId}': {
    get: {
      operationId: 'getProgram',
      tags: ['Programs'],
      summary: 'Read a program',
      description:
        "The program of the key's issuer, in the key's mode: its name, status, pool and what is left of it (`pool` and `remaining` are null for a program without a pool). `tokensCount` (= `issued`: shares of reserved, offered and accepted grants) and `active` (= `status` is `active`) are the names a client written for the reference product reads, as are `tokenValue`, `tokenValueCurrency` and `tokenValueCalculatedDate`: the value of a share now (the value history entry with the latest `asOf`; null while none is set). Another issuer's program answers exactly like one that does not exist (404); a key of the other mode is 403.",
      parameters: [{ $ref: '#/components/parameters/ProgramId' }],
      responses: {
        '200': ok(
          'The program.',
          'Program',
          {
            id: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
            object: 'program',
            mode: 'TEST',
            name: 'Referral programme',
            status: 'active',
            pool: 10000,
            issued: 1250,
            remaining: 8750,
            tokensCount: 1250,
            active: true,
            ...TOKEN_VALUE_EXAMPLE,
          },
          RATE_LIMIT_HEADERS,
        ),
        ...problems([401, 403, 404, 500, 503]),
      },
    },
  },
  '/programs/{programId}/grants': {
    get: {
      operationId: 'listGrants',
      tags: ['Grants'],
      summary: "List a program's grants",
      description:
        "Newest first, a page at a time: pass `nextCursor` back as `cursor` for the next page; the last page has `nextCursor: null`. With `recipient`, only that recipient's grants (the address is normalised as `recipient.email` is); with `status`, only grants in that state; a filtered page may hold fewer than `limit` grants, even none, and still have a `nextCursor`. Each grant is shown with its state, `rejectionReason`, `expiresAt` and `delivery`; its history is on its own GET. The same key rules as reading a grant.",
      parameters: [
        { $ref: '#/components/parameters/ProgramId' },
        query(
          'recipient',
          'Only grants to this address (trimmed and lower-cased before comparing).',
          { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
        ),
        query(
          'status',
          'Only grants in this state. Like `recipient`, a filter: a page may hold fewer than `limit` grants, even none, and still have a `nextCursor`.',
          { type: 'string', enum: [...GRANT_STATES] },
        ),
        query(
          'cursor',
          'The `nextCursor` of the previous page, as it was given (opaque; anything else is 400).',
          { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' },
        ),
        pageParameter('Grants', GRANT_PAGE),
      ],
      responses: {
        '200': ok(
          'A page of grants, newest first.',
          'GrantList',
          {
            object: 'list',
            data: [
              {
                ...GRANT_EXAMPLE,
                rejectionReason: null,
                expiresAt: '2026-12-26T09:30:00.000Z',
                delivery: 'sent',
              },
            ],
            nextCursor: 'MjAyNi0xMS0yNlQwOTozMDowMC4wMDBaIGdyXzVrMng5cTh3N2U2cjV0NHkzdjJqMWgwcDlh',
          },
          RATE_LIMIT_HEADERS,
        ),
        ...problems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
}
