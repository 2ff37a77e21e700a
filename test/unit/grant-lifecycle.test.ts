import * as fc from 'fast-check'
import {
  countsAsIssued,
  GRANT_STATES,
  type GrantActor,
  type GrantEvent,
  type GrantState,
  isGrantOpen,
  nextState,
  returnsShares,
} from '../../functions/domain/grant-lifecycle'

const RECIPIENT: GrantActor = { kind: 'recipient' }
const PERSON: GrantActor = { kind: 'person', sub: 's-1', email: 'owner@example.com' }
const KEY: GrantActor = { kind: 'key', keyId: 'key_1' }
const SERVICE: GrantActor = { kind: 'service' }
const EXPIRES = 1_000

const at = (state: GrantState) => ({ state, expiresAt: EXPIRES })

describe('a grant’s life', () => {
  it('is open (may still change) exactly while reserved or offered: the states nextState does not call final', () => {
    expect(GRANT_STATES.filter(isGrantOpen)).toEqual(['reserved', 'offered'])
    for (const state of GRANT_STATES) {
      const final = 'refused' in nextState(at(state), { kind: 'cancel' }, PERSON, 0)
      expect(isGrantOpen(state)).toBe(!final)
    }
  })

  it('goes reserved -> offered -> accepted by the recipient’s own steps, within the window', () => {
    expect(nextState(at('reserved'), { kind: 'identify' }, RECIPIENT, 10)).toEqual({
      to: 'offered',
    })
    expect(nextState(at('offered'), { kind: 'accept' }, RECIPIENT, 999)).toEqual({ to: 'accepted' })
  })

  it('is rejected with the reason: ineligible on identifying, declined by the recipient', () => {
    expect(
      nextState(at('reserved'), { kind: 'identify', ineligible: 'ineligible_age' }, RECIPIENT, 1),
    ).toEqual({ to: 'rejected', reason: 'ineligible_age' })
    expect(nextState(at('offered'), { kind: 'decline' }, RECIPIENT, 1)).toEqual({
      to: 'rejected',
      reason: 'declined',
    })
  })

  it('cannot be accepted before the recipient identified, nor at or after the window’s end', () => {
    expect(nextState(at('reserved'), { kind: 'accept' }, RECIPIENT, 1)).toEqual({
      refused: 'not_offered',
    })
    expect(nextState(at('offered'), { kind: 'accept' }, RECIPIENT, EXPIRES)).toEqual({
      refused: 'offer_expired',
    })
  })

  it('expires only once the window has passed, and only by the service', () => {
    expect(nextState(at('offered'), { kind: 'expire' }, SERVICE, EXPIRES - 1)).toEqual({
      refused: 'not_expired',
    })
    expect(nextState(at('offered'), { kind: 'expire' }, SERVICE, EXPIRES)).toEqual({
      to: 'expired',
    })
    expect(nextState(at('offered'), { kind: 'expire' }, RECIPIENT, EXPIRES)).toEqual({
      refused: 'not_allowed',
    })
  })

  it('is canceled by the issuer or the integrator before acceptance, never after', () => {
    for (const actor of [PERSON, KEY]) {
      expect(nextState(at('reserved'), { kind: 'cancel' }, actor, 1)).toEqual({ to: 'canceled' })
      expect(nextState(at('offered'), { kind: 'cancel' }, actor, EXPIRES + 1)).toEqual({
        to: 'canceled',
      })
      expect(nextState(at('accepted'), { kind: 'cancel' }, actor, 1)).toEqual({ refused: 'final' })
    }
    expect(nextState(at('reserved'), { kind: 'cancel' }, RECIPIENT, 1)).toEqual({
      refused: 'not_allowed',
    })
  })

  it('keeps issued equal to the shares of open and accepted grants, whatever happens, and returns each grant’s shares at most once', () => {
    const events: GrantEvent[] = [
      { kind: 'identify' },
      { kind: 'identify', ineligible: 'ineligible_country' },
      { kind: 'accept' },
      { kind: 'decline' },
      { kind: 'expire' },
      { kind: 'cancel' },
    ]
    const actors = [RECIPIENT, PERSON, KEY, SERVICE]
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(
          fc.record({
            grant: fc.nat(7),
            event: fc.constantFrom(...events),
            actor: fc.constantFrom(...actors),
            now: fc.integer({ min: 0, max: 2 * EXPIRES }),
          }),
          { maxLength: 60 },
        ),
        (amounts, steps) => {
          const grants = amounts.map((amount) => ({
            amount,
            state: 'reserved' as GrantState,
            returned: 0,
          }))
          let issued = amounts.reduce((sum, a) => sum + a, 0)
          for (const step of steps) {
            const grant = grants[step.grant % grants.length]
            if (!grant) continue
            const before = grant.state
            const next = nextState(
              { state: grant.state, expiresAt: EXPIRES },
              step.event,
              step.actor,
              step.now,
            )
            if ('refused' in next) continue
            expect(before === 'accepted').toBe(false)
            if (next.to === 'accepted') expect(step.now).toBeLessThan(EXPIRES)
            grant.state = next.to
            if (returnsShares(next.to)) {
              issued -= grant.amount
              grant.returned += 1
            }
            const counted = grants
              .filter((g) => countsAsIssued(g.state))
              .reduce((sum, g) => sum + g.amount, 0)
            expect(issued).toBe(counted)
          }
          for (const g of grants) expect(g.returned).toBeLessThanOrEqual(1)
        },
      ),
    )
  })
})
