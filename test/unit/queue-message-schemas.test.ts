import { readBatchRowsMessage } from '../../functions/core/batch-rows-message.schema'
import { PoisonMessage, parseBatchRowsMessage } from '../../functions/core/grant-batch-worker'
import { parseWebhookQueueMessage } from '../../functions/core/webhook-queue-message.schema'

/**
 * The queue bodies' zod schemas (beside their producers): what a producer writes parses to the
 * same message; every malformed body is refused (the consumer fails it towards the dead letters).
 */
describe('the Webhooks queue message', () => {
  const event = {
    kind: 'event',
    event: {
      eventId: 'evt_abc',
      type: 'grant.created',
      issuerId: 'iss_1',
      mode: 'TEST',
      occurredAt: '2026-11-28T10:00:00.000Z',
      data: { grantId: 'gr_1', programId: 'prg_1' },
    },
  }
  const delivery = {
    kind: 'delivery',
    issuerId: 'iss_1',
    endpointId: 'we_1',
    messageId: 'msg_1',
    attempt: 2,
    trigger: 'auto',
    notBefore: '2026-11-28T10:05:00.000Z',
  }
  const replay = {
    kind: 'replay',
    issuerId: 'iss_1',
    endpointId: 'we_1',
    since: '2026-11-27T10:00:00Z',
    cursor: 'abc',
  }

  it.each([
    ['an event', event],
    ['a delivery', delivery],
    ['a delivery with no notBefore', { ...delivery, notBefore: undefined }],
    ['a test delivery', { ...delivery, trigger: 'test', attempt: 0 }],
    ['a replay page', replay],
    ['a first replay page', { ...replay, cursor: undefined }],
  ])('reads %s as written', (_, body) => {
    expect(parseWebhookQueueMessage(JSON.stringify(body))).toEqual(JSON.parse(JSON.stringify(body)))
  })

  it.each([
    ['not JSON', 'not json {'],
    ['JSON null', 'null'],
    ['a string', '"delivery"'],
    ['an unknown kind', JSON.stringify({ ...delivery, kind: 'hop' })],
    ['no kind', JSON.stringify({ ...delivery, kind: undefined })],
    ['an event without its event', JSON.stringify({ kind: 'event' })],
    [
      'an event with an empty id',
      JSON.stringify({ ...event, event: { ...event.event, eventId: '' } }),
    ],
    [
      'an event of an unknown type',
      JSON.stringify({ ...event, event: { ...event.event, type: 'x' } }),
    ],
    ['an event in no mode', JSON.stringify({ ...event, event: { ...event.event, mode: 'PROD' } })],
    [
      'an event at no time',
      JSON.stringify({ ...event, event: { ...event.event, occurredAt: 'soon' } }),
    ],
    ['an event without data', JSON.stringify({ ...event, event: { ...event.event, data: null } })],
    ['a delivery to no endpoint', JSON.stringify({ ...delivery, endpointId: '' })],
    ['a delivery without a message', JSON.stringify({ ...delivery, messageId: undefined })],
    ['a negative attempt', JSON.stringify({ ...delivery, attempt: -1 })],
    ['a fractional attempt', JSON.stringify({ ...delivery, attempt: 1.5 })],
    ['an unknown trigger', JSON.stringify({ ...delivery, trigger: 'manual' })],
    ['a notBefore that is no time', JSON.stringify({ ...delivery, notBefore: 'later' })],
    ['a replay since no time', JSON.stringify({ ...replay, since: 'yesterday' })],
    ['a replay with a cursor not a string', JSON.stringify({ ...replay, cursor: 7 })],
    ['a replay of no issuer', JSON.stringify({ ...replay, issuerId: 3 })],
  ])('refuses %s', (_, body) => {
    expect(parseWebhookQueueMessage(body)).toBeUndefined()
  })
})

describe('the GrantBatchRows queue message', () => {
  const batchId = `bat_${'0'.repeat(26)}`

  it('reads a chunk message as written', () => {
    expect(readBatchRowsMessage(JSON.stringify({ batchId, chunk: 3 }))).toEqual({
      message: { batchId, chunk: 3 },
    })
    expect(parseBatchRowsMessage(JSON.stringify({ batchId, chunk: 0 }))).toEqual({
      batchId,
      chunk: 0,
    })
  })

  it.each([
    ['not JSON', 'not json {', 'The message body is not JSON'],
    ['JSON null', 'null', 'The message has no valid batchId'],
    ['no batch', JSON.stringify({ hello: 'world' }), 'The message has no valid batchId'],
    [
      'a batch id of another shape',
      JSON.stringify({ batchId: 'bat_1', chunk: 0 }),
      'The message has no valid batchId',
    ],
    ['no chunk', JSON.stringify({ batchId }), 'The message has no valid chunk'],
    ['a negative chunk', JSON.stringify({ batchId, chunk: -1 }), 'The message has no valid chunk'],
    [
      'a fractional chunk',
      JSON.stringify({ batchId, chunk: 0.5 }),
      'The message has no valid chunk',
    ],
    ['a chunk as text', JSON.stringify({ batchId, chunk: '1' }), 'The message has no valid chunk'],
  ])('refuses %s, saying why', (_, body, problem) => {
    expect(readBatchRowsMessage(body)).toEqual({ problem })
    expect(() => parseBatchRowsMessage(body)).toThrow(new PoisonMessage(problem))
  })
})
