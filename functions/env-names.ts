import type { TableKey } from './table-schema'

/**
 * Names of the environment variables the functions read (config.ts's loadConfig reads them, from the
 * environment each entry point hands it). Pure data, so the
 * CDK stack can import it to set them, and its test can check the two agree.
 */
export const ENV = {
  issuersTable: 'ISSUERS_TABLE',
  apiKeysTable: 'API_KEYS_TABLE',
  programsTable: 'PROGRAMS_TABLE',
  grantsTable: 'GRANTS_TABLE',
  membershipsTable: 'MEMBERSHIPS_TABLE',
  auditTable: 'AUDIT_TABLE',
  timersTable: 'TIMERS_TABLE',
  inboxTable: 'INBOX_TABLE',
  webhooksTable: 'WEBHOOKS_TABLE',
  figuresTable: 'FIGURES_TABLE',
  requestsTable: 'REQUESTS_TABLE',
  /**
   * The Cognito user pool the member routes invite people into (InviteMember, ResendInvitation,
   * ListMembers): the stack sets it from the pool; locally, the emulator's pool.
   */
  userPoolId: 'USER_POOL_ID',
  /** Only for the local Cognito emulator (npm start, tests); never set in AWS. */
  cognitoEndpoint: 'COGNITO_ENDPOINT',
  /**
   * The index grant listings read (ListGrantsByKey, ListGrants): `byProgram` while the stack still
   * deploys that legacy index (grants older than `byProgramSlot` are only there until
   * `grant backfill-slots` has run), `byProgramSlot` once it is dropped. Unset (npm start, tests,
   * functions that list nothing): `byProgramSlot`.
   */
  grantsListIndex: 'GRANTS_LIST_INDEX',
  /**
   * The service's own e-mail (functions/mail/mailer.ts): the From address, a verified SES identity
   * (the stage's `sesFromEmail`), and its SES region when not the function's. The stack sets them
   * on the functions whose route says `mail: true`, only when the stage has an SES identity;
   * unset, nothing is sent.
   */
  mailFrom: 'MAIL_FROM',
  mailSesRegion: 'MAIL_SES_REGION',
  /**
   * The SES configuration set the offer mail is sent with (its bounce and complaint events reach
   * the MailEvents function through SNS). The stack sets it, with MAIL_FROM, on the consumers that
   * send mail (functions/consumers.ts `mail: true`) when the stage has an SES identity.
   */
  mailConfigurationSet: 'MAIL_CONFIGURATION_SET',
  /**
   * Where the recipient's page is served: `https://<console domain>` in AWS (the console's
   * CloudFront distribution, which also routes `/recipient/*` to the API), the local server's
   * origin under npm start. Offer links are `<origin>/offer#t=<token>`. The stack sets it on the
   * functions that render those links.
   */
  recipientOrigin: 'RECIPIENT_ORIGIN',
  /**
   * Offer mails a second the offer mailer assumes when it cannot read the SES account's sending
   * rate (GetAccount's MaxSendRate); default 1, a sandbox account's. Optional everywhere.
   */
  mailFallbackSendRate: 'MAIL_FALLBACK_SEND_RATE',
  /** Only locally (npm start, tests): the mail sink file the service's e-mail goes to. */
  mailSinkFile: 'MAIL_SINK_FILE',
  /**
   * The console's address, linked from the service's own e-mail (the CustomMessage trigger reads
   * the same variable: IDENTITY_ENV.consoleUrl).
   */
  consoleUrl: 'CONSOLE_URL',
  /**
   * The upload bucket of send-to-many CSVs (presigned POSTs): the stack sets it on the routes that
   * presign or read uploads (functions/routes.ts `uploads`). Unset under npm start and in tests,
   * which hand the routes a local store (Runtime.uploads).
   */
  uploadBucket: 'UPLOAD_BUCKET',
  /**
   * Webhook signing secrets are stored sealed (functions/runtime/secret-box.ts): with this KMS key
   * in AWS (the stack sets it on the functions whose spec says `kms`), or, only under npm start and
   * in tests, with WEBHOOK_LOCAL_SECRET_KEY (32 bytes, base64), which a stage never has.
   */
  webhookKmsKeyId: 'WEBHOOK_KMS_KEY_ID',
  webhookLocalSecretKey: 'WEBHOOK_LOCAL_SECRET_KEY',
  /**
   * `true` only under npm start and in tests: the webhook sender may deliver to loopback
   * addresses (a developer's own receiver). Never set by the stack.
   */
  webhookAllowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  /** Only for DynamoDB Local (npm start, sam local); empty in AWS. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Set by the Lambda runtime itself; never by the stack. */
  awsRegion: 'AWS_REGION',
} as const

/**
 * The variable that names each table. Every function gets all of them (names are not secrets);
 * what a function may do with each table is its route's `access` in routes.ts, which the stack
 * turns into IAM. The stack and the local server set the variables from this map.
 */
export const TABLE_ENV = {
  issuers: ENV.issuersTable,
  apiKeys: ENV.apiKeysTable,
  programs: ENV.programsTable,
  grants: ENV.grantsTable,
  memberships: ENV.membershipsTable,
  audit: ENV.auditTable,
  timers: ENV.timersTable,
  inbox: ENV.inboxTable,
  webhooks: ENV.webhooksTable,
  figures: ENV.figuresTable,
  requests: ENV.requestsTable,
} as const satisfies Record<TableKey, string>
