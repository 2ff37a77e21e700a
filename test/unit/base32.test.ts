import { base32 } from '../../functions/domain/ids'
import { webhookEventId, webhookMessageId } from '../../functions/domain/webhooks'

/** functions/domain/ids.ts base32: one encoder, two alphabets (ids, and webhook ids). */
describe('base32', () => {
  it("writes 5 bits a letter, Crockford's alphabet unless given", () => {
    const bytes = Uint8Array.from([0xff, 0x00, 0x10])
    expect(base32(bytes, 4)).toBe('zw01')
    expect(base32(bytes, 4, 'abcdefghijklmnopqrstuvwxyz234567')).toBe('74ab')
  })

  it('makes the webhook ids it made before it was shared (they are stored and sent)', () => {
    expect(webhookEventId('grant.offered', 'gr_1', '2026-01-01')).toBe(
      'evt_ztk4ca7k6dkjaqwrq6pdncvvlg',
    )
    expect(
      webhookMessageId({ eventId: 'evt_x', occurredAt: '2026-01-01T00:00:00.000Z' }, 'we_1'),
    ).toBe('msg_019b76daa800ft2rlhfqqm3pfrx3vkim')
  })
})
