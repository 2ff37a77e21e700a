import {
  auditEntry,
  decodeAuditCursor,
  encodeAuditCursor,
  newAuditEntryId,
} from '../../functions/domain/audit-entry'
import { decodeCursor, encodeCursor, ISO_TIME } from '../../functions/domain/page-cursor'

/** domain/page-cursor.ts: the one codec behind the grant, batch and audit cursors. */
describe('the page cursor', () => {
  const AT = '2026-03-01T12:00:00.000Z'
  const ID = /^id_[a-z]{3}$/

  /** The same bytes, its last character's unused bits set otherwise: not a cursor it made. */
  const sameBytesOtherSpelling = (cursor: string) => {
    const bytes = Buffer.from(cursor, 'base64url')
    const other = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']
      .map((c) => `${cursor.slice(0, -1)}${c}`)
      .find((c) => c !== cursor && Buffer.from(c, 'base64url').equals(bytes))
    if (other === undefined) throw new Error('the cursor has no unused bits')
    return other
  }

  it('takes back the parts it made, one per pattern', () => {
    const cursor = encodeCursor(AT, 'id_abc')
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor, [ISO_TIME, ID])).toEqual([AT, 'id_abc'])
    expect(decodeCursor(encodeCursor('id_abc'), [ID])).toEqual(['id_abc'])
  })

  it('refuses what it did not make', () => {
    const cursor = encodeCursor(AT, 'id_abc')
    for (const bad of [
      undefined,
      42,
      '',
      'not a cursor',
      `${cursor}=`,
      sameBytesOtherSpelling(cursor),
      encodeCursor(AT),
      encodeCursor(AT, 'id_abc', 'more'),
      encodeCursor('yesterday', 'id_abc'),
      encodeCursor(AT, 'id_ABC'),
    ]) {
      expect(decodeCursor(bad, [ISO_TIME, ID])).toBeUndefined()
    }
  })

  it('refuses a cursor longer than the listing allows', () => {
    const long = encodeCursor('x'.repeat(90))
    expect(decodeCursor(long, [/^x+$/])).toBeUndefined()
    expect(decodeCursor(long, [/^x+$/], 200)).toEqual(['x'.repeat(90)])
  })
})

describe('the audit entry', () => {
  const NOW = Date.parse('2026-03-01T12:00:00.000Z')

  it('is time-ordered and unique, and its id makes a cursor', () => {
    const id = newAuditEntryId(NOW)
    expect(id).toMatch(/^2026-03-01T12:00:00\.000Z#[0-9a-f]{8}$/)
    expect(decodeAuditCursor(encodeAuditCursor(id))).toBe(id)
    expect(decodeAuditCursor(encodeAuditCursor('2026-03-01T12:00:00.000Z'))).toBeUndefined()
  })

  it('records who did what to what, with the optional request id and details', () => {
    const entry = auditEntry({
      issuerId: 'iss_1',
      actor: { kind: 'person', sub: 's', email: 'a@example.com' },
      action: 'batch.cancel',
      target: { type: 'batch', id: 'bat_1' },
      now: NOW,
    })
    expect(entry).toEqual({
      issuerId: 'iss_1',
      entryId: expect.stringMatching(/^2026-03-01T12:00:00\.000Z#/),
      at: '2026-03-01T12:00:00.000Z',
      actor: { kind: 'person', sub: 's', email: 'a@example.com' },
      action: 'batch.cancel',
      target: { type: 'batch', id: 'bat_1' },
    })
    expect(auditEntry({ ...entry, now: NOW, requestId: 'r1', details: { left: 3 } })).toMatchObject(
      { requestId: 'r1', details: { left: 3 } },
    )
  })
})
