import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SNSEvent } from 'aws-lambda'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { decideMailEvent } from '../../functions/core/mail-events'
import type { GrantRecord } from '../../functions/domain/grant'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { makeMailEventsHandler } from '../../functions/wiring/mail-events.consumer'
import { admin, createKey } from '../support/api'
import { config, documentClient, runtime } from '../support/runtime'

/**
 * SES's bounce and complaint events, as the configuration set's SNS destination delivers them to
 * the MailEvents function: the fixtures are SES event-publishing documents (test/fixtures/ses/),
 * each wrapped in the SNS event Lambda receives, fed to the handler against DynamoDB Local.
 */
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, '../fixtures/ses', name), 'utf8')) as {
    mail: { tags: Record<string, string[]> }
  } & Record<string, unknown>

/** The document for this grant: the fixture with its `grantId` tag set, nothing else changed. */
const documentFor = (name: string, grantId: string) => {
  const document = fixture(name)
  document.mail.tags.grantId = [grantId]
  return document
}

const snsEvent = (document: unknown): SNSEvent => ({
  Records: [
    {
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      EventSubscriptionArn:
        'arn:aws:sns:eu-west-1:111122223333:MailEventsTopic:0b3f2c1d-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
      Sns: {
        Type: 'Notification',
        MessageId: '7c4f7b1e-2a3b-5c4d-9e8f-1a2b3c4d5e6f',
        TopicArn: 'arn:aws:sns:eu-west-1:111122223333:MailEventsTopic',
        Subject: null as unknown as string,
        Message: JSON.stringify(document),
        Timestamp: '2026-11-26T10:00:04.000Z',
        SignatureVersion: '1',
        Signature: 'EXAMPLE',
        SigningCertUrl: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-example.pem',
        UnsubscribeUrl: 'https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe',
        MessageAttributes: {},
      },
    },
  ],
})

const grants = new DynamoDbGrantStore(documentClient, config.tables)
const lifeStore = new DynamoDbGrantLifeStore(documentClient, config.tables)
const handler = makeMailEventsHandler(runtime)

let counter = 0
const liveGrant = async (email: string) => {
  const { issuerId } = await admin.createIssuer({ name: 'Events' })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode: 'LIVE',
    name: 'p',
    pool: 100,
  })
  const key = await createKey({ issuerId, mode: 'LIVE' })
  const send = makeGrantTokens({ store: grants, access: new AccessCache(grants) })
  const { grant } = await send({
    apiKey: key.secret,
    programId: program.programId,
    idempotencyKey: `events-${process.pid}-${counter++}`,
    body: { recipient: { email }, reason: 'r', amount: 5 },
  })
  return grant
}
const stored = async (grantId: string) => (await lifeStore.findGrants([grantId]))[0] as GrantRecord

describe('SES events (MailEvents)', () => {
  it('a Bounce marks the grant’s delivery failed, with the bounce type and no address', async () => {
    const grant = await liveGrant('nobody-here@example.com')
    await handler(snsEvent(documentFor('bounce.json', grant.grantId)))
    const after = await stored(grant.grantId)
    expect(after.offer?.delivery).toBe('failed')
    expect(after.status).toBe('reserved')
    const lines = after.history?.filter((h) => h.event === 'delivery') ?? []
    expect(lines).toEqual([
      expect.objectContaining({
        delivery: 'bounced',
        detail: 'Permanent/General',
        actor: 'service',
      }),
    ])
    expect(JSON.stringify(after.history)).not.toMatch(/@|smtp|550/)
  })

  it('records a document SNS delivers twice once; a bounce of a later mail again', async () => {
    const grant = await liveGrant('twice@example.com')
    const bounce = snsEvent(documentFor('bounce.json', grant.grantId))
    await handler(bounce)
    await handler(bounce)
    const deliveries = async () =>
      ((await stored(grant.grantId)).history ?? [])
        .filter((h) => h.event === 'delivery')
        .map((h) => h.delivery)
    expect(await deliveries()).toEqual(['bounced'])
    // The issuer resends; that mail bounces too: a new line.
    await lifeStore.change({
      grant: await stored(grant.grantId),
      offer: { delivery: 'sent' },
      entry: {
        at: new Date().toISOString(),
        event: 'delivery',
        delivery: 'sent',
        actor: 'service',
      },
    })
    await handler(bounce)
    expect(await deliveries()).toEqual(['bounced', 'sent', 'bounced'])
  })

  it('a Complaint marks it failed as complained, with the feedback type', async () => {
    const grant = await liveGrant('annoyed@example.com')
    await handler(snsEvent(documentFor('complaint.json', grant.grantId)))
    const after = await stored(grant.grantId)
    expect(after.offer?.delivery).toBe('failed')
    expect(after.history?.filter((h) => h.event === 'delivery')).toEqual([
      expect.objectContaining({ delivery: 'complained', detail: 'abuse' }),
    ])
    expect(JSON.stringify(after.history)).not.toContain('@')
  })

  it('an event without the grant tag (mail the service did not tag) changes nothing', async () => {
    const grant = await liveGrant('untagged@example.com')
    const document = fixture('bounce.json')
    delete document.mail.tags.grantId
    await handler(snsEvent(document))
    expect((await stored(grant.grantId)).history ?? []).toEqual([])
  })

  it('a document that is not JSON is dropped, not retried', async () => {
    const event = snsEvent({})
    ;(event.Records[0] as SNSEvent['Records'][number]).Sns.Message = 'not json'
    await expect(handler(event)).resolves.toBeUndefined()
  })
})

describe('what an SES event means for a grant (decideMailEvent)', () => {
  const grantId = 'gr_0123456789abcdefghijklmnop'
  it('reads the fixtures as SES wrote them', () => {
    expect(decideMailEvent(documentFor('bounce.json', grantId))).toEqual({
      grantId,
      event: 'bounced',
      detail: 'Permanent/General',
    })
    expect(decideMailEvent(documentFor('complaint.json', grantId))).toEqual({
      grantId,
      event: 'complained',
      detail: 'abuse',
    })
  })

  it('a Reject or a rendering failure is a failed delivery; a delay, a send or a delivery is none', () => {
    const tagged = (extra: Record<string, unknown>) => ({
      mail: { tags: { grantId: [grantId] } },
      ...extra,
    })
    expect(
      decideMailEvent(tagged({ eventType: 'Reject', reject: { reason: 'Bad content' } })),
    ).toEqual({
      grantId,
      event: 'failed',
      detail: 'rejected by SES: Bad content',
    })
    expect(decideMailEvent(tagged({ eventType: 'Rendering Failure' }))).toMatchObject({
      event: 'failed',
    })
    for (const eventType of ['DeliveryDelay', 'Send', 'Delivery', 'Open', 'Click']) {
      expect(decideMailEvent(tagged({ eventType }))).toEqual({ ignored: 'not_a_failure' })
    }
  })

  it('keeps anything but SES’s own words out of the detail', () => {
    const document = documentFor('bounce.json', grantId) as Record<string, unknown>
    document.bounce = { bounceType: 'Permanent', bounceSubType: 'user <x@example.com> unknown' }
    expect(decideMailEvent(document)).toMatchObject({ detail: 'Permanent/Undetermined' })
  })

  it('ignores a tag that is not a grant id, and what is not an event document', () => {
    const document = documentFor('bounce.json', 'gr_../../x')
    expect(decideMailEvent(document)).toEqual({ ignored: 'no_grant' })
    expect(decideMailEvent({ notificationType: 'Bounce' })).toEqual({ ignored: 'not_an_event' })
    expect(decideMailEvent(null)).toEqual({ ignored: 'not_an_event' })
  })
})
