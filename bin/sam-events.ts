/**
 * `npm run sam:events`: renders events/*.json with the ids and key of the local seed into
 * .local/events/, ready for `sam local invoke -e .local/events/grant.json`.
 * `npm run sam:events -- --batch <batchId> [--chunk <n>]` also writes grant-batch-rows.json: the SQS
 * event GrantBatchWorker receives for that chunk of a batch committed under npm start or from the
 * console (`sam local invoke GrantBatchWorkerFunction -e .local/events/grant-batch-rows.json`).
 * `npm run sam:events -- --endpoint <endpointId> --message <messageId>` also writes
 * webhook-delivery.json: the SQS event WebhookSender receives to send a webhook message of the
 * seeded issuer's endpoint again, as the console's Replay does (`trigger: 'replay'`: sent whatever
 * its earlier attempts; one made under npm start, a test event for instance):
 * `sam local invoke WebhookSenderFunction -e .local/events/webhook-delivery.json`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { BATCH_ID } from '../functions/domain/batch'
import { WEBHOOK_ENDPOINT_ID, WEBHOOK_MESSAGE_ID } from '../functions/domain/webhooks'
import { localPaths } from '../local/local-env'
import {
  batchRowsEvent,
  eventValues,
  sampleEvents,
  webhookDeliveryEvent,
} from '../local/sam-events'
import type { Seed } from '../local/seed'

const fail = (message: string): never => {
  console.error(`error: ${message}`)
  process.exit(1)
}
let options: {
  batch?: string | undefined
  chunk?: string | undefined
  endpoint?: string | undefined
  message?: string | undefined
} = {}
try {
  options = parseArgs({
    options: {
      batch: { type: 'string' },
      chunk: { type: 'string' },
      endpoint: { type: 'string' },
      message: { type: 'string' },
    },
    strict: true,
  }).values
} catch (error) {
  // parseArgs explains on further lines; the first says what is wrong.
  fail((error as Error).message.split('\n')[0] ?? 'bad arguments')
}
const chunk = Number(options.chunk ?? '0')
if (!Number.isSafeInteger(chunk) || chunk < 0 || !/^\d+$/.test(options.chunk ?? '0')) {
  fail(`--chunk must be a chunk's index (0, 1, ...), got ${JSON.stringify(options.chunk)}.`)
}
if (options.chunk !== undefined && options.batch === undefined) {
  fail('--chunk needs --batch <batchId>: the chunk of which batch?')
}
if (options.batch !== undefined && !BATCH_ID.test(options.batch)) {
  fail(
    `--batch must be a batch id (bat_ and 26 characters, as the commit answered), got ${JSON.stringify(options.batch)}.`,
  )
}
if ((options.endpoint === undefined) !== (options.message === undefined)) {
  fail(
    '--endpoint and --message go together: the webhook message (msg_...) of which endpoint (we_...)?',
  )
}
if (options.endpoint !== undefined && !WEBHOOK_ENDPOINT_ID.test(options.endpoint)) {
  fail(
    `--endpoint must be a webhook endpoint id (we_ and 26 characters, as the console shows it), got ${JSON.stringify(options.endpoint)}.`,
  )
}
if (options.message !== undefined && !WEBHOOK_MESSAGE_ID.test(options.message)) {
  fail(
    `--message must be a webhook message id (msg_ and 32 characters, as the delivery log shows it), got ${JSON.stringify(options.message)}.`,
  )
}

const paths = localPaths(process.env.VS_LOCAL_DIR)
if (!existsSync(paths.seedFile)) {
  console.error(
    `error: ${paths.seedFile} does not exist yet. Run npm start first; it seeds the local database.`,
  )
  process.exit(1)
}
const seed = JSON.parse(readFileSync(paths.seedFile, 'utf8')) as Seed
const out = join(paths.dir, 'events')
mkdirSync(out, { recursive: true })
for (const { file, event } of sampleEvents(
  fileURLToPath(new URL('../events', import.meta.url)),
  eventValues(seed),
)) {
  writeFileSync(join(out, file), `${JSON.stringify(event, null, 2)}\n`, { mode: 0o600 })
  console.log(join(out, file))
}
if (options.batch !== undefined) {
  const file = join(out, 'grant-batch-rows.json')
  const event = batchRowsEvent({ batchId: options.batch, chunk })
  writeFileSync(file, `${JSON.stringify(event, null, 2)}\n`, { mode: 0o600 })
  console.log(file)
}
if (options.endpoint !== undefined && options.message !== undefined) {
  const file = join(out, 'webhook-delivery.json')
  const event = webhookDeliveryEvent({
    issuerId: seed.issuerId,
    endpointId: options.endpoint,
    messageId: options.message,
    attempt: 1,
    trigger: 'replay',
  })
  writeFileSync(file, `${JSON.stringify(event, null, 2)}\n`, { mode: 0o600 })
  console.log(file)
}
