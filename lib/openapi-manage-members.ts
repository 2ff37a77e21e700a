import { AUDIT_PAGE } from '../functions/core/admin'
import { LIMITS } from '../functions/domain/grant-request.schema'
import { MEMBER_BODY_MAX_BYTES, MEMBER_ID } from '../functions/domain/member-request.schema'
import { ROLES } from '../functions/domain/people'
import {
  BEARER,
  cursorParameter,
  ID,
  IssuerParameter,
  type Json,
  jsonBody,
  manageAnswer,
  manageAnswers,
  manageProblems,
  NO_STORE,
  NULLABLE_CURSOR,
  pageParameter,
  REQUEST_ID,
  schemaRef,
  TIME,
} from './openapi-parts'

/**
 * Part of openapi.json: the management routes about people and what they did (a Cognito access
 * token): who is signed in (ManageMe), the audit log (ListAudit), an issuer's members and
 * invitations (ListMembers, InviteMember, ChangeMemberRole, RemoveMember, ResendInvitation).
 * Proved by test/manage/{audit-me,members}.manage.test.ts through test/support/contract-check.ts.
 */

const ROLE = { type: 'string', enum: [...ROLES] }
const answer = manageAnswer

const ROLES_TEXT = ROLES.map((r) => `\`${r}\``).join(', ')

const MemberParameters = [IssuerParameter, { $ref: '#/components/parameters/MemberId' }]

export const MEMBER_EXAMPLE = {
  memberId: '5f0c6d2e-8a1b-4c3d-9e4f-0a1b2c3d4e5f',
  email: 'ann@example.com',
  role: 'admin',
  status: 'invited',
  createdAt: '2026-11-26T09:30:00.000Z',
  invitedBy: 'owner@example.com',
}

export const manageMemberParameters: Record<string, Json> = {
  MemberId: {
    name: 'memberId',
    in: 'path',
    required: true,
    description:
      "The member id from the member list: the person's Cognito `sub`. Another issuer's member, an unknown id and a malformed one answer `404 member_not_found` alike.",
    schema: { type: 'string', pattern: MEMBER_ID.source },
  },
}

export const manageMemberPaths: Record<string, Json> = {
  '/manage/me': {
    get: {
      operationId: 'manageMe',
      tags: ['Management'],
      summary: 'Who is signed in, and their issuers (signed in)',
      description:
        "The signed-in person's e-mail and every issuer they belong to, with its name and their role, by issuer name. Access tokens carry no e-mail: it comes from a membership (`null` for a person who belongs to no issuer). Memberships are read through an index, so one added a moment ago may show a little later (each issuer's own routes read the table itself). The console calls it after every sign-in, so it is also where the person's pending invitations are accepted: each `invited` membership becomes `active`. Any query parameter is refused (400).",
      security: BEARER,
      responses: {
        '200': answer('The person and their memberships.', 'Me', {
          email: 'ann@example.com',
          memberships: [
            {
              issuerId: 'iss_0h7d3k9m2n4p6q8r1s3t5v7w9x',
              issuerName: 'Example GmbH',
              role: 'admin',
            },
          ],
        }),
        ...manageProblems([400, 401, 403, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/audit': {
    get: {
      operationId: 'manageListAudit',
      tags: ['Management'],
      summary: "The issuer's audit log (viewer)",
      description: `Every change made to the issuer through the management API or the admin CLI, and every webhook endpoint the webhook sender turned off, newest first, ${AUDIT_PAGE.default} entries a page by default. Each entry was written in the same transaction as its change. Read only: no route changes or deletes an entry. Not a member of the issuer: \`404 issuer_not_found\`.`,
      security: BEARER,
      parameters: [IssuerParameter, cursorParameter, pageParameter('Entries', AUDIT_PAGE)],
      responses: {
        '200': answer('A page of entries, newest first.', 'AuditList', {
          entries: [
            {
              id: '2026-11-26T09:30:00.000Z#0a1b2c3d',
              at: '2026-11-26T09:30:00.000Z',
              actor: { kind: 'person', sub: MEMBER_EXAMPLE.memberId, email: 'ann@example.com' },
              action: 'program.pause',
              target: { type: 'program', id: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x' },
              requestId: '0f6c2f8e-1f0b-4a53-9d5c-8b1c1f4c2a10',
              details: { from: 'active', to: 'paused' },
            },
          ],
          nextCursor: null,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members': {
    get: {
      operationId: 'manageListMembers',
      tags: ['Management'],
      summary: "The issuer's members and invitations (viewer)",
      description:
        'Every member and pending invitation, oldest first. `status` is `invited` until the person signs in after being added, then `active`; the user pool is not asked, so the list tells nothing about accounts elsewhere. Any query parameter is refused (400).',
      security: BEARER,
      parameters: [IssuerParameter],
      responses: manageAnswers('The members.', 'MemberList', { members: [MEMBER_EXAMPLE] }),
    },
    post: {
      operationId: 'manageInviteMember',
      tags: ['Management'],
      summary: 'Invite a person by e-mail (owner)',
      description: `Adds the address to the issuer with a role (${ROLES_TEXT}), \`invited\`: the same answer whether or not the address already has an account, so an issuer learns nothing about accounts. A new address gets an account and Cognito's invitation with a temporary password; an account still waiting for its first sign-in gets a new invitation naming every issuer with a pending one; an account with a password gets an e-mail saying who added them (not sent without an SES identity: the membership is added all the same). The address is trimmed and lower-cased; already a member or invited here (any spelling): \`409 member_exists\`, nothing sent or written. The membership and its \`member.invite\` audit entry are one transaction. Bodies over ${MEMBER_BODY_MAX_BYTES} bytes: 413.`,
      security: BEARER,
      parameters: [IssuerParameter],
      requestBody: jsonBody('MemberInviteRequest', { email: 'ann@example.com', role: 'admin' }),
      responses: {
        '201': answer('The member, invited.', 'Member', MEMBER_EXAMPLE, {
          Location: {
            description: "The member's path (`.../members/{memberId}`).",
            required: true,
            schema: { type: 'string' },
          },
        }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members/{memberId}': {
    patch: {
      operationId: 'manageChangeMemberRole',
      tags: ['Management'],
      summary: "Change a member's role (owner)",
      description:
        "Effective on the member's very next call (roles are read on every request). The same role again: 200, nothing written. An issuer keeps an owner: demoting its last owner (a pending invitation to owner counts as one) is `409 last_owner`, checked in the same transaction as the change, so two owners demoting each other at once still leave one. Audited (`member.role`, from and to).",
      security: BEARER,
      parameters: MemberParameters,
      requestBody: jsonBody('MemberRoleRequest', { role: 'viewer' }),
      responses: {
        '200': answer('The member with the role.', 'Member', { ...MEMBER_EXAMPLE, role: 'viewer' }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
    delete: {
      operationId: 'manageRemoveMember',
      tags: ['Management'],
      summary: 'Remove a member or withdraw an invitation (owner)',
      description:
        'Their very next management call for this issuer is answered 404. The account stays (it may belong to other issuers) and opens nothing here. The last owner cannot be removed (`409 last_owner`). Audited (`member.remove`). No body is read.',
      security: BEARER,
      parameters: MemberParameters,
      responses: {
        '204': { description: 'Removed.', headers: { ...REQUEST_ID, ...NO_STORE } },
        ...manageProblems([400, 401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members/{memberId}/resend': {
    post: {
      operationId: 'manageResendInvitation',
      tags: ['Management'],
      summary: 'Send a pending invitation again (owner)',
      description:
        "The same answer whatever the person's account looks like: never signed in, a new temporary password in an e-mail naming every issuer with a pending invitation (it replaces the earlier password; also the way back once the 7 days ran out); a password of their own, the e-mail saying who added them. Accepted since (the person signed in): `409 member_active`, nothing sent. The e-mail goes first, then the `member.resend` audit entry. No body is read.",
      security: BEARER,
      parameters: MemberParameters,
      responses: {
        '200': answer('The member, still invited.', 'Member', MEMBER_EXAMPLE),
        ...manageProblems([400, 401, 403, 404, 409, 500, 503]),
      },
    },
  },
}

const MEMBER_PROPERTIES = {
  memberId: {
    type: 'string',
    pattern: MEMBER_ID.source,
    description: "The person's Cognito `sub`.",
  },
  email: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
  role: ROLE,
  status: {
    type: 'string',
    enum: ['invited', 'active'],
    description: '`invited` until the person signs in after being added.',
  },
  createdAt: { ...TIME, description: 'When they were invited.' },
  invitedBy: {
    type: 'string',
    description: "Who invited them: a member's e-mail, or `operator CLI`.",
  },
}

/** The audit entry's actors (functions/domain/people.ts, Actor). */
const ACTORS: Record<string, Json> = {
  AuditActorPerson: {
    type: 'object',
    description: 'A signed-in member, through the management API or the console.',
    properties: {
      kind: { type: 'string', const: 'person' },
      sub: { type: 'string' },
      email: { type: 'string', format: 'email' },
    },
    required: ['kind', 'sub', 'email'],
    additionalProperties: false,
  },
  AuditActorOperator: {
    type: 'object',
    description: 'The operator, through the admin CLI.',
    properties: {
      kind: { type: 'string', const: 'operator' },
      label: { type: 'string', const: 'operator CLI' },
    },
    required: ['kind', 'label'],
    additionalProperties: false,
  },
  AuditActorService: {
    type: 'object',
    description:
      'The service itself, by a rule no person applied: the webhook sender disabling an endpoint (`webhook.disable`).',
    properties: {
      kind: { type: 'string', const: 'service' },
      label: { type: 'string', const: 'webhook sender' },
    },
    required: ['kind', 'label'],
    additionalProperties: false,
  },
}

export const manageMemberSchemas: Record<string, Json> = {
  Me: {
    type: 'object',
    properties: {
      email: {
        anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }],
        description: 'From a membership (access tokens carry none); null with no membership.',
      },
      memberships: {
        type: 'array',
        description: 'By issuer name, then id.',
        items: {
          type: 'object',
          properties: {
            issuerId: ID.issuer,
            issuerName: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            role: ROLE,
          },
          required: ['issuerId', 'issuerName', 'role'],
          additionalProperties: false,
        },
      },
    },
    required: ['email', 'memberships'],
    additionalProperties: false,
  },
  ...ACTORS,
  AuditEntry: {
    type: 'object',
    description:
      'One change, written in the same transaction as the change and never changed or deleted. Never a key, part of one, its hash, a password or a token.',
    properties: {
      id: {
        type: 'string',
        pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z#[0-9a-f]{8}$',
        description: 'Its time and a random suffix: sorts by time, unique.',
      },
      at: TIME,
      actor: { oneOf: Object.keys(ACTORS).map(schemaRef) },
      action: {
        type: 'string',
        description:
          'What was done: `issuer.create`, `program.create|pause|resume|close|offer_settings`, `key.create|roll|revoke`, `member.invite|role|remove|resend`, `grant.send|cancel|resend|correct_email`, `batch.commit|cancel|finish`, `webhook.create|update|delete|rotate|test|replay|disable`.',
        examples: ['program.create', 'member.invite'],
      },
      target: {
        type: 'object',
        properties: {
          // functions/domain/people.ts, AuditEntry['target']['type'].
          type: {
            type: 'string',
            enum: ['issuer', 'program', 'key', 'member', 'grant', 'batch', 'webhook_endpoint'],
          },
          id: { type: 'string' },
        },
        required: ['type', 'id'],
        additionalProperties: false,
      },
      requestId: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: "The management call's request id; null for the CLI and the service.",
      },
      details: {
        type: 'object',
        description:
          'Small, non-secret facts about the change (a mode, a name, from/to, a key id).',
        additionalProperties: {
          anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
        },
      },
    },
    required: ['id', 'at', 'actor', 'action', 'target', 'requestId', 'details'],
    additionalProperties: false,
  },
  AuditList: {
    type: 'object',
    properties: {
      entries: { type: 'array', items: schemaRef('AuditEntry') },
      nextCursor: NULLABLE_CURSOR,
    },
    required: ['entries', 'nextCursor'],
    additionalProperties: false,
  },
  Member: {
    type: 'object',
    description: 'A member of the issuer, or a pending invitation.',
    properties: MEMBER_PROPERTIES,
    required: Object.keys(MEMBER_PROPERTIES),
    additionalProperties: false,
  },
  MemberList: {
    type: 'object',
    properties: { members: { type: 'array', items: schemaRef('Member') } },
    required: ['members'],
    additionalProperties: false,
  },
  MemberInviteRequest: {
    type: 'object',
    description: 'Unknown fields are refused and named (400).',
    properties: {
      email: {
        type: 'string',
        format: 'email',
        maxLength: LIMITS.maxEmailLength,
        description: 'Trimmed and lower-cased before anything else.',
      },
      role: ROLE,
    },
    required: ['email', 'role'],
    additionalProperties: false,
  },
  MemberRoleRequest: {
    type: 'object',
    description: 'Unknown fields are refused and named (400).',
    properties: { role: ROLE },
    required: ['role'],
    additionalProperties: false,
  },
}
