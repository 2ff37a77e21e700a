import type { QueueId } from '../consumers'
import type { Role } from '../domain/people'
import type { TableKey } from '../table-schema'

/**
 * One route of the API: what the stack deploys for it (function, authorizer, IAM) and what the
 * local server routes. Pure data; the list is functions/routes.ts ROUTES.
 */
export type Route = {
  /** Stable id: the function's construct id and the local server's handler name. */
  id: string
  /** API Gateway HTTP API route key. */
  routeKey: string
  /** Handler module, relative to the project root. */
  entry: string
  /**
   * Who may call it. `function`: nothing at the gateway; the function checks the caller itself
   * (the grant API's `x-api-key`, checked inside the grant transaction). `user`: the gateway's JWT
   * authorizer first (a Cognito access token: signature, issuer, client, expiry, and the scope
   * USER_SCOPE), then the function checks the person's role in the issuer on every request.
   */
  auth: 'function' | 'user'
  /**
   * For `user` routes: the lowest role in the path's issuer that may call it, or `signed-in` for
   * routes about the person themself (`GET /manage/me`).
   */
  role?: Role | 'signed-in'
  /**
   * Exactly the DynamoDB actions the function needs, hot path and error path, per table: the
   * stack grants these and nothing else. TransactWriteItems is authorised per item through these
   * actions; no Scan, no wildcard; a Query here reads one partition of the table itself.
   */
  access: Partial<Record<TableKey, readonly string[]>>
  /**
   * Actions on a table's global secondary indexes, by index name (a Query on an index is
   * authorised on `<table ARN>/index/<name>`, not on the table): the stack grants each on exactly
   * that index.
   */
  indexes?: Partial<Record<TableKey, Readonly<Record<string, readonly string[]>>>>
  /**
   * It limits each API key's rate (http/integrator-request.ts): dynamodb:UpdateItem on the apiKeys
   * table's rate buckets only (`keyHash = rate#<keyId>`, a `dynamodb:LeadingKeys` condition), never
   * on a key. Absent: none.
   */
  rateBuckets?: true
  /**
   * The Cognito actions the function needs, on the stack's user pool only (the stack grants them
   * on the pool's ARN, and sets USER_POOL_ID on the function). Absent: none.
   */
  cognito?: readonly string[]
  /**
   * The function sends the service's own e-mail (functions/mail/mailer.ts). The stack gives it the
   * console's address (CONSOLE_URL) and, when the stage has an SES identity (`sesFromEmail`),
   * MAIL_FROM and ses:SendEmail on that identity only (Identity.allowServiceMail). Absent: none.
   */
  mail?: boolean
  /**
   * The function renders links to the recipient's page (`<origin>/offer#t=...`): the stack gives
   * it that origin (RECIPIENT_ORIGIN, the console's CloudFront domain). Absent: none.
   */
  recipientLinks?: boolean
  /**
   * The send-to-many upload bucket (lib/upload-bucket.ts): `presign` signs POST policies for keys
   * under `uploads/` (s3:PutObject there: a presigned POST acts with the signer's rights), `read`
   * reads them (s3:GetObject there). The stack sets UPLOAD_BUCKET and grants exactly that, on
   * that prefix only. Absent: none.
   */
  uploads?: 'presign' | 'read'
  /**
   * It lists a program's grants (stores/grant-listing.dynamodb.ts) from the index the stage says
   * (GRANTS_LIST_INDEX: `byProgramSlot`, or `byProgram` on a stage deployed with
   * `-c keepLegacyIndexes=true`): the stack sets that variable and lets it Query both meanwhile.
   * Not ListGrantBatches, which reads batches from `byProgramSlot` only.
   */
  listsGrants?: true
  /**
   * Queues the function sends to (functions/consumers.ts QUEUES): the stack grants sqs:SendMessage
   * (which also authorises SendMessageBatch) on exactly those queues and sets each one's
   * `urlVariable` on the function; its Lambda entry builds the sender from it. Absent: none.
   */
  sends?: readonly QueueId[]
  /**
   * What the function does with the webhook secrets' KMS key (functions/runtime/secret-box.ts):
   * `encrypt` (create an endpoint, rotate its secret: the new secret is sealed, never stored
   * plain) or `decrypt` (send a test event). The stack sets WEBHOOK_KMS_KEY_ID and grants exactly
   * that action on that key. Absent: none.
   */
  kms?: 'encrypt' | 'decrypt'
}

type RouteBody = Omit<Route, 'id' | 'routeKey' | 'entry' | 'auth'>

/** Routes of one kind of caller, their handlers in one folder under functions/handlers/. */
const routesOf =
  <const Auth extends Route['auth']>(auth: Auth, folder: string) =>
  <const Id extends string, const Key extends string, const Body extends RouteBody>(
    id: Id,
    routeKey: Key,
    handler: string,
    body: Body,
  ) =>
    ({
      id,
      routeKey,
      entry: `functions/handlers/${folder}${handler}.handler.ts`,
      auth,
      ...body,
    }) as const

/** A route whose caller the function checks itself (an API key, a link token, nobody). */
export const functionRoute = routesOf('function', '')
/** A management route: the gateway's JWT authorizer first, then the caller's role in the issuer. */
export const userRoute = routesOf('user', 'manage/')

/** The caller's membership, read first by every management route. */
export const MEMBER = ['dynamodb:GetItem'] as const
/** The audit entry each management change writes in its transaction. */
export const AUDIT = ['dynamodb:PutItem'] as const
/** Items read (alone or batched) and updated: a program's counters, a grant's state. */
export const READ_AND_UPDATE = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:UpdateItem',
] as const
/**
 * An admin's creation of an item of `table` under the issuer: the caller's membership, the
 * issuer's existence checked in the transaction that puts the item, and its audit entry.
 */
export const creation = (table: TableKey) => ({
  role: 'admin' as const,
  access: {
    memberships: MEMBER,
    issuers: ['dynamodb:ConditionCheckItem'] as const,
    [table]: ['dynamodb:PutItem'] as const,
    audit: AUDIT,
  },
})
