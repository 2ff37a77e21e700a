import {
  balance,
  correctEmail,
  issuerActions,
  resend,
  testMove,
} from '../../functions/core/grant-life/issuer-actions'
import {
  type LifeContext,
  owned,
  RECIPIENT_LIMITS,
  RESEND_GAP_MS,
  refusalError,
} from '../../functions/core/grant-life/life-context'
import {
  limitAttempts,
  linkOf,
  recipientSteps,
} from '../../functions/core/grant-life/recipient-steps'
import { recipientGrantView } from '../../functions/core/grant-life/recipient-view'
import {
  expire,
  issueOfferLink,
  recordDelivery,
  remind,
} from '../../functions/core/grant-life/service-actions'
import { move, onOffer } from '../../functions/core/grant-life/transition'
import {
  GrantAccepted,
  GrantNotFound,
  GrantStateConflict,
  OfferLinkInvalid,
  OfferNotIdentified,
  ResendTooSoon,
  ServiceUnavailable,
  TestModeOnly,
  TooManyAttempts,
} from '../../functions/domain/errors'
import type { GrantRecord } from '../../functions/domain/grant'
import type { ProgramRecord } from '../../functions/domain/program'
import { MAX_OFFER_TOKENS, newOfferToken } from '../../functions/domain/recipient-offer'
import * as RETRY from '../../functions/runtime/retry-policies'
import type {
  GrantChange,
  GrantLifeStore,
  LifeOutcome,
} from '../../functions/stores/grant-life.store'

/**
 * The steps of a grant's life (functions/core/grant-life/), each on an in-memory store with an
 * injected clock, sleep and random: the transition write and its lost races (RETRY.lostRace), the
 * ownership check, the issuer's, the service's and the recipient's steps. The same steps on
 * DynamoDB Local, through every door: reliability/grant-life.test.ts, http/recipient.http.test.ts.
 */

const DAY = 86_400_000
const START = Date.parse('2026-05-01T00:00:00.000Z')
const GRANT = 'gr_0123456789abcdefghijklmnop'
const PROGRAM = 'pg_0123456789abcdefghijklmnop'

const grantOf = (fields: Partial<GrantRecord> = {}): GrantRecord => ({
  grantId: GRANT,
  programId: PROGRAM,
  issuerId: 'is_1',
  mode: 'TEST',
  recipient: { email: 'ann@example.com', name: 'Ann Lee' },
  reason: 'Bonus',
  amount: 3,
  status: 'reserved',
  createdAt: new Date(START).toISOString(),
  expiresAt: new Date(START + 30 * DAY).toISOString(),
  recipientKey: 'ann@example.com',
  requestHash: 'h',
  ...fields,
})

const programOf = (fields: Partial<ProgramRecord> = {}): ProgramRecord => ({
  programId: PROGRAM,
  issuerId: 'is_1',
  mode: 'TEST',
  name: 'Launch',
  status: 'active',
  issued: 3,
  createdAt: new Date(START).toISOString(),
  ...fields,
})

/**
 * A store of one program and its grants that writes on the state as read (`stale` otherwise);
 * `losing` makes the next writes lose their race as if another writer won, `unavailable` makes
 * them fail as after the store's own retries.
 */
const rig = (grants: GrantRecord[] = [grantOf()], now = START + DAY) => {
  const stored = new Map(grants.map((g) => [g.grantId, structuredClone(g)]))
  const tokens = new Map<string, { grantId: string; tokenOf: string; expiresAt: string }>()
  const changes: GrantChange[] = []
  const waits: number[] = []
  const counted = new Map<string, number>()
  const forced: (LifeOutcome | 'too_soon')[] = []
  let reads = 0
  const clock = { now }
  const written = (grant: GrantRecord): LifeOutcome | 'too_soon' | undefined => {
    const next = forced.shift()
    if (next !== undefined) return next
    const current = stored.get(grant.grantId)
    return current?.status === grant.status && current.recipient.email === grant.recipient.email
      ? undefined
      : 'stale'
  }
  /** The write `apply` makes, on the state as read (or the forced outcome). */
  const writeIf = (grant: GrantRecord, apply: (stored: GrantRecord) => void) => {
    const outcome = written(grant)
    if (outcome !== undefined) return outcome
    apply(stored.get(grant.grantId) as GrantRecord)
    return 'done'
  }
  const store = {
    findGrant: async (grantId: string) => {
      reads++
      const g = stored.get(grantId)
      return g === undefined ? undefined : structuredClone(g)
    },
    findProgramHead: async () => programOf(),
    findProgramHeads: async () => [programOf()],
    findTermsTexts: async () => [],
    grantsOfRecipient: async (email: string) =>
      [...stored.values()].filter((g) => g.recipientKey === email).map((g) => structuredClone(g)),
    change: async (change: GrantChange) => {
      changes.push(change)
      return writeIf(change.grant, (g) => {
        if (change.to !== undefined) g.status = change.to
        if (change.offer !== undefined) g.offer = change.offer
        if (change.entry !== undefined) g.history = [...(g.history ?? []), change.entry]
      })
    },
    addOfferToken: async (grant: GrantRecord, token: { hash: string; expiresAt: string }) =>
      writeIf(grant, (g) => {
        g.offer = {
          delivery: 'pending',
          ...g.offer,
          tokens: [...(g.offer?.tokens ?? []), token.hash],
        }
        const tokenOf = grant.grantId
        tokens.set(token.hash, {
          grantId: `offer-token#${token.hash}`,
          tokenOf,
          expiresAt: token.expiresAt,
        })
      }),
    findOfferToken: async (hash: string) => tokens.get(hash),
    requestResend: async (grant: GrantRecord, input: { now: number }) =>
      writeIf(grant, (g) => {
        g.offer = {
          delivery: 'pending',
          ...g.offer,
          resendRequestedAt: new Date(input.now).toISOString(),
        }
      }),
    correctEmail: async (grant: GrantRecord, input: { email: string }) =>
      writeIf(grant, (g) => {
        g.recipient = { ...g.recipient, email: input.email }
        g.recipientKey = input.email
      }),
    countAttempt: async (key: string, input: { limit: number }) => {
      const n = (counted.get(key) ?? 0) + 1
      counted.set(key, n)
      return n > input.limit ? 'limited' : 'allowed'
    },
  } as unknown as GrantLifeStore
  const ctx: LifeContext = {
    store,
    clock: () => clock.now,
    iso: () => new Date(clock.now).toISOString(),
    sleep: async (ms) => {
      waits.push(ms)
    },
    random: () => 1,
  }
  return {
    ctx,
    stored,
    changes,
    waits,
    clock,
    reads: () => reads,
    /** The next `n` writes answer `outcome` whatever the grant's state. */
    force: (n: number, outcome: LifeOutcome | 'too_soon') => {
      for (let i = 0; i < n; i++) forced.push(outcome)
    },
    /** Another writer's change, between a read and the write. */
    meanwhile: (fields: Partial<GrantRecord>) =>
      Object.assign(stored.get(GRANT) as GrantRecord, fields),
  }
}

const person = { kind: 'person' as const, sub: 's-1', email: 'admin@example.com' }

describe('the transition write (transition.ts)', () => {
  it('writes on the state as read: the history line, shares back on a final refusal state', async () => {
    const r = rig()
    const grant = await move(r.ctx, grantOf(), { kind: 'cancel' }, person)
    expect(grant.status).toBe('canceled')
    expect(grant.history).toEqual([
      expect.objectContaining({
        event: 'transition',
        state: 'canceled',
        actor: 'person:admin@example.com',
      }),
    ])
    expect(r.changes[0]).toMatchObject({
      to: 'canceled',
      returnShares: { program: { programId: PROGRAM } },
    })
    expect(r.waits).toEqual([])
  })

  it('a lost race: the lostRace wait, a read, and a decision on what was read', async () => {
    const r = rig()
    r.force(2, 'stale')
    const grant = await move(r.ctx, grantOf(), { kind: 'identify' }, { kind: 'recipient' })
    expect(grant.status).toBe('offered')
    expect(r.waits).toEqual([10, 20])
    expect(r.changes).toHaveLength(3)
  })

  it("decides again on the winner's state: the recipient accepted meanwhile, a cancel is refused", async () => {
    const r = rig()
    r.meanwhile({ status: 'accepted' })
    await expect(move(r.ctx, grantOf(), { kind: 'cancel' }, person)).rejects.toBeInstanceOf(
      GrantAccepted,
    )
    expect(r.changes).toHaveLength(1)
  })

  it('past RETRY.lostRace tries: service_unavailable, after waits 10 ms doubling to 160', async () => {
    const r = rig()
    r.force(100, 'stale')
    await expect(move(r.ctx, grantOf(), { kind: 'cancel' }, person)).rejects.toBeInstanceOf(
      ServiceUnavailable,
    )
    expect(r.changes).toHaveLength(RETRY.lostRace.attempts)
    expect(r.waits).toEqual([10, 20, 40, 80, 160, 160, 160])
  })

  it('the store unavailable after its own retries: service_unavailable at once', async () => {
    const r = rig()
    r.force(1, 'unavailable')
    await expect(move(r.ctx, grantOf(), { kind: 'cancel' }, person)).rejects.toBeInstanceOf(
      ServiceUnavailable,
    )
    expect(r.waits).toEqual([])
  })

  it('a refusal the caller accepts is the answer: the grant as read, nothing written', async () => {
    const r = rig([grantOf({ status: 'offered' })])
    const grant = await move(
      r.ctx,
      grantOf({ status: 'offered' }),
      { kind: 'identify' },
      { kind: 'recipient' },
      { accept: (refusal) => refusal === 'already_offered' },
    )
    expect(grant.status).toBe('offered')
    expect(r.changes).toEqual([])
  })

  it('onOffer: missing, skipped, and a lost race read again', async () => {
    const r = rig()
    const offer = () => ({ delivery: 'sent' as const })
    await expect(onOffer(r.ctx, 'gr_missing', offer, () => undefined)).resolves.toBe('missing')
    await expect(
      onOffer(
        r.ctx,
        GRANT,
        () => undefined,
        () => undefined,
      ),
    ).resolves.toBe('skipped')
    r.force(1, 'stale')
    await expect(onOffer(r.ctx, GRANT, offer, () => undefined)).resolves.toBe('done')
    expect(r.waits).toEqual([10])
    r.force(100, 'stale')
    await expect(onOffer(r.ctx, GRANT, offer, () => undefined)).resolves.toBe('unavailable')
  })
})

describe('ownership and refusals (life-context.ts)', () => {
  it("another issuer's, mode's or program's grant, or an id never issued, answers as not found", async () => {
    const { ctx } = rig()
    await expect(
      owned(ctx.store, GRANT, { issuerId: 'is_1', mode: 'TEST' }),
    ).resolves.toMatchObject({ grantId: GRANT })
    for (const owner of [
      { issuerId: 'is_2' },
      { issuerId: 'is_1', mode: 'LIVE' as const },
      { issuerId: 'is_1', programId: 'pg_other' },
    ]) {
      await expect(owned(ctx.store, GRANT, owner)).rejects.toBeInstanceOf(GrantNotFound)
    }
    await expect(owned(ctx.store, 'not-an-id', { issuerId: 'is_1' })).rejects.toBeInstanceOf(
      GrantNotFound,
    )
  })

  it('each refusal as the error every door answers with', () => {
    expect(refusalError(grantOf({ status: 'accepted' }), 'final')).toBeInstanceOf(GrantAccepted)
    expect(refusalError(grantOf({ status: 'expired' }), 'final')).toBeInstanceOf(GrantStateConflict)
    expect(refusalError(grantOf(), 'not_offered')).toBeInstanceOf(OfferNotIdentified)
  })
})

describe('issuer and key actions (issuer-actions.ts)', () => {
  it('cancel with an audit entry; a canceled grant answers as it is, nothing written', async () => {
    const r = rig()
    const actions = issuerActions(r.ctx)
    await actions.cancel({
      grantId: GRANT,
      issuerId: 'is_1',
      actor: person,
      audit: { requestId: 'rq' },
    })
    expect(r.changes[0]?.audit).toMatchObject({ action: 'grant.cancel' })
    await expect(
      actions.cancel({ grantId: GRANT, issuerId: 'is_1', actor: person }),
    ).resolves.toMatchObject({ status: 'canceled' })
    expect(r.changes).toHaveLength(1)
  })

  it('resend: a lost race read again; too soon answers when the next may be asked', async () => {
    const r = rig()
    r.force(1, 'stale')
    const grant = await resend(r.ctx, { grantId: GRANT, issuerId: 'is_1', actor: person })
    expect(grant.offer?.resendRequestedAt).toBe(new Date(r.clock.now).toISOString())
    expect(r.waits).toEqual([10])
    r.clock.now += 60_000
    r.force(1, 'too_soon')
    const error = await resend(r.ctx, { grantId: GRANT, issuerId: 'is_1', actor: person }).catch(
      (e) => e,
    )
    expect(error).toBeInstanceOf(ResendTooSoon)
    expect(error.retryAfterSeconds).toBe((RESEND_GAP_MS - 60_000) / 1000)
  })

  it('correctEmail: normalised, none written for the same address, refused on a final grant', async () => {
    const r = rig()
    const input = { grantId: GRANT, issuerId: 'is_1', actor: person }
    await expect(
      correctEmail(r.ctx, { ...input, email: ' Bob@Example.com ' }),
    ).resolves.toMatchObject({ recipientKey: 'bob@example.com' })
    await correctEmail(r.ctx, { ...input, email: 'bob@example.com' })
    r.meanwhile({ status: 'accepted' })
    await expect(correctEmail(r.ctx, { ...input, email: 'cy@example.com' })).rejects.toBeInstanceOf(
      GrantAccepted,
    )
  })

  it('testMove: TEST only; to accepted through identify, on a simulation actor', async () => {
    const r = rig()
    await expect(
      testMove(r.ctx, { grantId: GRANT, issuerId: 'is_1', mode: 'LIVE', to: 'accepted' }),
    ).rejects.toBeInstanceOf(TestModeOnly)
    const grant = await testMove(r.ctx, {
      grantId: GRANT,
      issuerId: 'is_1',
      mode: 'TEST',
      to: 'accepted',
    })
    expect(grant.status).toBe('accepted')
    expect(r.changes.map((c) => c.to)).toEqual(['offered', 'accepted'])
    expect(r.changes.every((c) => c.entry?.actor === 'simulation')).toBe(true)
  })

  it('balance: shares accepted and pending, the address normalised', async () => {
    const { ctx } = rig([
      grantOf({ status: 'accepted', amount: 2 }),
      grantOf({ grantId: 'gr_2', amount: 5 }),
      grantOf({ grantId: 'gr_3', status: 'expired', amount: 7 }),
    ])
    await expect(
      balance(ctx, {
        issuerId: 'is_1',
        mode: 'TEST',
        programId: PROGRAM,
        email: 'ANN@example.com',
      }),
    ).resolves.toMatchObject({ email: 'ann@example.com', name: 'Ann Lee', accepted: 2, pending: 5 })
  })
})

describe('service actions (service-actions.ts)', () => {
  // Days after START, and the answer then: inside the window, when due, and once done.
  it.each([
    [
      'expire',
      expire,
      [
        [1, 'not_due'],
        [31, 'expired'],
        [31, 'final'],
      ],
    ],
    [
      'remind',
      remind,
      [
        [1, 'not_due'],
        [29, 'reminded'],
        [29, 'done_already'],
      ],
    ],
  ] as const)(
    '%s: by the clock, once, and missing for an unknown grant',
    async (_, step, answers) => {
      const r = rig()
      for (const [day, answer] of answers) {
        r.clock.now = START + day * DAY
        await expect(step(r.ctx, GRANT)).resolves.toBe(answer)
      }
      // One write: nothing before it was due, nothing once done.
      expect(r.changes).toHaveLength(1)
      await expect(step(r.ctx, 'gr_missing')).resolves.toBe('missing')
    },
  )

  it('issueOfferLink: a token on the grant; none for a link asked while the grant holds the most', async () => {
    const r = rig()
    const link = await issueOfferLink(r.ctx, GRANT)
    expect(link?.grant.offer?.tokens).toHaveLength(1)
    expect(link?.program.programId).toBe(PROGRAM)
    const full = Array.from({ length: MAX_OFFER_TOKENS }, () => newOfferToken().hash)
    r.meanwhile({ offer: { delivery: 'sent', tokens: full } })
    await expect(issueOfferLink(r.ctx, GRANT, { keepOthers: true })).resolves.toBeUndefined()
    r.force(100, 'stale')
    await expect(issueOfferLink(r.ctx, GRANT)).resolves.toBeUndefined()
  })

  it('recordDelivery: sends counted, a failure marked, a missing grant no error', async () => {
    const r = rig()
    await recordDelivery(r.ctx, { grantId: GRANT, event: 'sent' })
    await recordDelivery(r.ctx, { grantId: GRANT, event: 'bounced', detail: 'x'.repeat(300) })
    expect(r.stored.get(GRANT)?.offer).toMatchObject({ delivery: 'failed', sends: 1 })
    expect(r.changes[1]?.entry?.detail).toHaveLength(200)
    await expect(recordDelivery(r.ctx, { grantId: 'gr_missing', event: 'sent' })).resolves.toBe(
      'done',
    )
  })
})

describe("the recipient's steps (recipient-steps.ts)", () => {
  it('a token of the wrong shape, or unknown: one answer', async () => {
    const { ctx } = rig()
    await expect(linkOf(ctx, 'short')).rejects.toBeInstanceOf(OfferLinkInvalid)
    await expect(linkOf(ctx, newOfferToken().token)).rejects.toBeInstanceOf(OfferLinkInvalid)
  })

  it('past the limit of a window: too many attempts, Retry-After to the end of the window', async () => {
    const r = rig()
    const rule = { windowMs: 60_000, limit: 1 }
    await limitAttempts(r.ctx, 'k', rule)
    const error = await limitAttempts(r.ctx, 'k', rule).catch((e) => e)
    expect(error).toBeInstanceOf(TooManyAttempts)
    expect(error.retryAfterSeconds).toBe(Math.ceil((60_000 - (r.clock.now % 60_000)) / 1000))
  })

  it('a link opens the page; identify and accept move the grant as the recipient', async () => {
    const r = rig()
    const link = await issueOfferLink(r.ctx, GRANT)
    const steps = recipientSteps(r.ctx)
    const token = link?.token
    await expect(steps.view({ token })).resolves.toMatchObject({
      email: 'ann@example.com',
      grants: [{ grantId: GRANT, state: 'reserved' }],
    })
    await steps.identify({ token, grantId: GRANT, name: 'Ann Lee' })
    const view = await steps.accept({ token, grantId: GRANT, termsVersion: 0 })
    expect(view.grants).toEqual([expect.objectContaining({ grantId: GRANT, state: 'accepted' })])
    await expect(steps.decline({ token, grantId: 'gr_other' })).rejects.toBeInstanceOf(
      OfferLinkInvalid,
    )
  })

  it('requestLink: limited per address; a resend asked of the newest open grant per issuer', async () => {
    const r = rig()
    const steps = recipientSteps(r.ctx)
    for (let i = 0; i < RECIPIENT_LIMITS.address.limit; i++) {
      await expect(steps.requestLink({ email: 'ann@example.com' })).resolves.toBe('requested')
    }
    await expect(steps.requestLink({ email: 'ann@example.com' })).resolves.toBe('limited')
    expect(r.stored.get(GRANT)?.offer?.resendRequestedAt).toBeDefined()
  })

  it('recipientGrantView: the program rules, nothing of the issuer', () => {
    const view = recipientGrantView(
      grantOf(),
      programOf({ minAge: 18, terms: { version: 2, url: 'https://example.com/t' } }),
    )
    expect(view).toMatchObject({
      programName: 'Launch',
      minAge: 18,
      terms: { version: 2, url: 'https://example.com/t' },
      identified: false,
    })
    expect(view).not.toHaveProperty('issuerId')
  })
})
