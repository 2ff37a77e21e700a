import { MEMBER, type Route, userRoute } from './route'

/**
 * An issuer's request log (issue 33; stores/request-log-reads.dynamodb.ts): what the integrator
 * API answered its keys, kept 30 days. Read only, by any member: a listing is one Query per
 * partition of the modes asked for; one request is one BatchGetItem of its key in both modes.
 */
const REQUESTS = '/manage/issuers/{issuerId}/requests'

export const MANAGE_REQUEST_ROUTES = [
  userRoute('ListRequests', `GET ${REQUESTS}`, 'requests-list', {
    role: 'viewer',
    access: { memberships: MEMBER, requests: ['dynamodb:Query'] },
  }),
  userRoute('GetRequest', `GET ${REQUESTS}/{requestId}`, 'request-get', {
    role: 'viewer',
    access: { memberships: MEMBER, requests: ['dynamodb:BatchGetItem'] },
  }),
] as const satisfies readonly Route[]
