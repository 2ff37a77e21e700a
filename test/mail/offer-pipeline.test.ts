import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantLife } from '../../functions/core/grant-life'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { Mode } from '../../functions/domain/api-key'
import type { GrantRecord } from '../../functions/domain/grant'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { DynamoDbInboxStore } from '../../functions/stores/inbox.dynamodb'
import { makeOfferMailerHandler } from '../../functions/wiring/offer-mailer.consumer'
import { readMail } from '../../local/mail-sink'
import { admin, createKey } from '../support/api'
import { usePipeline } from '../support/pipeline'
import { config, documentClient, runtimeWith, wallClock } from '../support/runtime'

/**
 * The offer mail end to end on the local pipeline, as npm start runs it: a grant written by the
 * grant path -> the grants table's stream -> GrantStream -> the OfferMail queue -> OfferMailer.
 * A LIVE grant's mail reaches the mail sink (SES's stand-in locally) and a TEST grant's the TEST
 * inbox (and the sink); a magic address is driven to its state; a resend sends again.
 */
const sinkFile = join(mkdtempSync(join(tmpdir(), 'offer-pipeline-')), 'mail.jsonl')
const runtime = runtimeWith({ RECIPIENT_ORIGIN: 'http://localhost:3000', MAIL_SINK_FILE: sinkFile })
/**
 * The run's test files share the grants table, so this pipeline also reads other files' grants:
 * its mailer acts only on this file's issuers' (it would otherwise send their offers and move their magic
 * addresses under them); the others' messages are taken and left alone.
 */
const grants = new DynamoDbGrantStore(documentClient, config.tables)
const lifeStore = new DynamoDbGrantLifeStore(documentClient, config.tables)
const mine = new Set<string>()
const pipeline = usePipeline({
  runtime,
  consumers: {
    OfferMailer: (rt) => {
      const handler = makeOfferMailerHandler(rt)
      return async (event) => {
        const Records = []
        for (const record of event.Records) {
          const { grantId } = JSON.parse(record.body) as { grantId: string }
          const grant = await lifeStore.findGrant(grantId)
          if (grant !== undefined && mine.has(grant.issuerId)) Records.push(record)
        }
        return handler({ Records })
      }
    },
  },
})

const life = makeGrantLife({ store: lifeStore, clock: () => wallClock.now() })
const inbox = new DynamoDbInboxStore(documentClient, config.tables)

let counter = 0
const grantIn = async (mode: Mode, email: string) => {
  const { issuerId } = await admin.createIssuer({ name: `Pipeline ${mode}` })
  mine.add(issuerId)
  const program = await admin.createProgram({ issuer: issuerId, mode, name: 'Launch', pool: 100 })
  const key = await createKey({ issuerId, mode })
  const send = makeGrantTokens({ store: grants, access: new AccessCache(grants) })
  const { grant } = await send({
    apiKey: key.secret,
    programId: program.programId,
    idempotencyKey: `pipeline-${process.pid}-${counter++}`,
    body: { recipient: { email }, reason: 'Welcome', amount: 7 },
  })
  return { grant, issuerId }
}
const stored = async (grantId: string) => (await lifeStore.findGrants([grantId]))[0] as GrantRecord

describe('offer mail through the local pipeline', () => {
  it('mails a LIVE grant’s offer to the sink, with a link that opens it; a resend mails again', async () => {
    const { grant, issuerId } = await grantIn('LIVE', `live-${process.pid}@example.com`)
    const status = await pipeline.drain(30_000)
    expect(status.queues.OfferMail?.deadLetters).toBe(0)
    const mails = readMail(sinkFile).filter((m) => m.to === grant.recipient.email)
    expect(mails).toHaveLength(1)
    expect(mails[0]?.subject).toBe('Pipeline LIVE offers you 7 shares')
    const token = /http:\/\/localhost:3000\/offer#t=([A-Za-z0-9_-]{43})/.exec(
      mails[0]?.text ?? '',
    )?.[1]
    expect((await life.view({ token })).grants.map((g) => g.grantId)).toEqual([grant.grantId])
    expect((await stored(grant.grantId)).offer?.delivery).toBe('sent')
    expect((await inbox.list({ issuerId, limit: 5 })).items).toEqual([])

    // A resend waits 10 minutes after the last mail: the injected clock moves past it.
    wallClock.advance(11 * 60_000)
    await life.resend({ grantId: grant.grantId, issuerId, actor: { kind: 'operator' } })
    await pipeline.drain(30_000)
    expect(readMail(sinkFile).filter((m) => m.to === grant.recipient.email)).toHaveLength(2)
    expect((await stored(grant.grantId)).offer?.sends).toBe(2)
  })

  it('puts a TEST grant’s offer in the TEST inbox, and drives a magic address to its state', async () => {
    const plain = await grantIn('TEST', `test-${process.pid}@example.com`)
    const magic = await grantIn('TEST', `decline+${process.pid}@example.com`)
    await pipeline.drain(30_000)
    const [message] = (await inbox.list({ issuerId: plain.issuerId, limit: 5 })).items
    expect(message?.grantId).toBe(plain.grant.grantId)
    expect(message?.subject).toBe('[TEST] Pipeline TEST offers you 7 shares')
    expect(readMail(sinkFile).some((m) => m.to === plain.grant.recipient.email)).toBe(true)
    expect(await stored(magic.grant.grantId)).toMatchObject({
      status: 'rejected',
      rejectionReason: 'declined',
    })
  })
})
