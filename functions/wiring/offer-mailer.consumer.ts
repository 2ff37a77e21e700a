import { SESv2Client } from '@aws-sdk/client-sesv2'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import type { Runtime } from '../composition'
import { consumerById } from '../consumers'
import { makeGrantLife } from '../core/grant-life'
import { makeHoldings } from '../core/holdings'
import { makeHoldingsMailer } from '../core/holdings-mailer'
import { makeOfferMailer, type OfferMailer } from '../core/offer-mailer'
import { parseOfferMailQueueMessage } from '../domain/offer-mail-message.schema'
import { ENV } from '../env-names'
import { createMailer, type Mailer, MailSinkMailer, SesMailer } from '../mail/mailer'
import { type SendPace, sesSendRate, tokenBucket, unpaced } from '../mail/send-pace'
import { logger } from '../runtime/logger'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbHoldingsSessions } from '../stores/holdings-sessions.dynamodb'
import { DynamoDbInboxStore } from '../stores/inbox.dynamodb'
import { issuerNames } from '../stores/issuer-names.dynamodb'
import { transientKind } from '../stores/store-errors'

/** A configuration the offer mailer cannot work without: its message is safe to log. */
export class OfferMailerNotConfigured extends Error {
  override readonly name = 'OfferMailerNotConfigured'
}

/** Leave this much of the function's time unused: a message started later is left for redelivery. */
const TIME_MARGIN_MS = 10_000

/** SES or DynamoDB saying "slow down": the rest of the batch waits for its redelivery too. */
const isThrottle = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'TooManyRequestsException' ||
    error.name === 'LimitExceededException' ||
    transientKind(error) === 'unavailable')

/**
 * The SQS handler over a mailer: each message of the batch in order (the pace spaces them), a
 * failure reported in `batchItemFailures` (partial batch response: only those come back). A
 * message that cannot be an OfferMail message fails too, to reach the dead letters where an
 * operator sees it. Throttled, it stops there: the rest of the batch is left for redelivery.
 */
export const offerMailerSqsHandler =
  (mailer: OfferMailer) =>
  async (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const failures: SQSBatchResponse['batchItemFailures'] = []
    let stopped = false
    for (const record of event.Records) {
      if (
        stopped ||
        (context !== undefined && context.getRemainingTimeInMillis() < TIME_MARGIN_MS)
      ) {
        failures.push({ itemIdentifier: record.messageId })
        continue
      }
      const message = parseOfferMailQueueMessage(record.body)
      if (message === undefined) {
        logger.error('OfferMail message of an unknown shape', { messageId: record.messageId })
        failures.push({ itemIdentifier: record.messageId })
        continue
      }
      // Never the address of a link request in a log line: the grant's id, or nothing.
      const about = 'grantId' in message ? { grantId: message.grantId } : {}
      try {
        const outcome = await mailer.handle(message)
        logger.info('Offer mail', { ...about, kind: message.kind, ...outcome })
      } catch (error) {
        // The error's name and the grant only: an SES message may quote the address.
        logger.warn('Offer mail failed; it comes back', {
          ...about,
          kind: message.kind,
          error: error instanceof Error ? error.name : 'unknown',
          ...(error instanceof OfferMailerNotConfigured ? { message: error.message } : {}),
        })
        failures.push({ itemIdentifier: record.messageId })
        if (isThrottle(error)) stopped = true
      }
    }
    return { batchItemFailures: failures } satisfies SQSBatchResponse
  }

/**
 * The offer mailer over a runtime: its Lambda entry (handlers/offer-mailer.handler.ts) builds it
 * once per process, and so do npm start and the tests. With an SES identity (MAIL_FROM) and no
 * mail sink: SES with the configuration set, paced by the account's rate (read once, on the
 * first LIVE send) divided among the queue trigger's maxConcurrency. Locally: the mail sink, no
 * pacing. `overrides` lets a test pass its own transport or pace. Reads nothing at import.
 */
export const offerMailerOf = (
  runtime: Runtime,
  overrides: { mailer?: Mailer; pace?: SendPace; sesClient?: SESv2Client } = {},
): OfferMailer => {
  const { documentClient, config } = runtime
  const mail = config.mail
  const recipientOrigin = mail.recipientOrigin
  if (recipientOrigin === undefined) {
    // Every message fails (and reaches the dead letters) saying why, rather than a process that
    // also serves other consumers (npm start's pipeline) failing to start.
    return {
      handle: async () => {
        throw new OfferMailerNotConfigured(
          `The offer mailer needs ${ENV.recipientOrigin} (or ${ENV.consoleUrl}): offer links point there.`,
        )
      },
    }
  }
  const clock = () => runtime.clock.now()
  let mailer = overrides.mailer
  let pace = overrides.pace
  if (mail.sinkFile === undefined && mail.from !== undefined) {
    const client =
      overrides.sesClient ??
      new SESv2Client(mail.sesRegion === undefined ? {} : { region: mail.sesRegion })
    mailer ??= new SesMailer(client, mail.from, mail.configurationSet)
    const trigger = consumerById('OfferMailer').trigger
    pace ??= tokenBucket({
      ratePerSecond: sesSendRate(client, {
        fallback: mail.fallbackSendRate,
        concurrency: trigger.kind === 'queue' ? (trigger.maxConcurrency ?? 1) : 1,
        onFallback: (error) =>
          logger.warn('SES GetAccount unreadable: pacing by the fallback rate', {
            rate: mail.fallbackSendRate,
            error: error instanceof Error ? error.name : 'unknown',
          }),
      }),
      clock,
    })
  }
  const store = new DynamoDbGrantLifeStore(documentClient, config.tables)
  const inbox = new DynamoDbInboxStore(documentClient, config.tables)
  const sink = mail.sinkFile === undefined ? undefined : new MailSinkMailer(mail.sinkFile)
  const issuerName = issuerNames(documentClient, config.tables.issuers, clock, (issuerId, error) =>
    // Cosmetic: the mail still goes, naming the program (kept for the TTL, not retried per mail).
    logger.warn('Issuer name unreadable; the offer mail names the program', {
      issuerId,
      error: error instanceof Error ? error.name : 'unknown',
    }),
  )
  const transport = mailer ?? createMailer(mail)
  const sending = { inbox, clock, pace: pace ?? unpaced, recipientOrigin, sink, issuerName }
  return makeOfferMailer({
    life: makeGrantLife({ store, clock }),
    mailer: transport,
    ...sending,
    holdingsMail: makeHoldingsMailer({
      holdings: makeHoldings({
        store,
        sessions: new DynamoDbHoldingsSessions(documentClient, config.tables),
        clock,
        issuerName,
      }),
      mailer: transport,
      ...sending,
    }),
  })
}

/** The OfferMailer consumer's handler (functions/consumers.ts) over a runtime. */
export const makeOfferMailerHandler = (
  runtime: Runtime,
  overrides: Parameters<typeof offerMailerOf>[1] = {},
) => offerMailerSqsHandler(offerMailerOf(runtime, overrides))
