import type { RefObject } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { isGrantOpen } from '../../../functions/domain/grant-lifecycle'
import { GrantCard } from '../offer/grant-card'
import type { GrantActions } from '../offer/grant-steps'
import { problemText, type RecipientGrant } from '../offer/offer-api'
import { saveText } from '../save-file'
import {
  grantStep,
  type Holdings,
  type HoldingsGrant,
  type HoldingsProgram,
  isSessionOver,
  readStatement,
} from './holdings-api'

/**
 * Signed in: the address, its mode, a statement (CSV, print), sign-out, then each issuer and its
 * programs: the accepted shares and their value, the open offers with the offer page's own steps,
 * and the history. A grant the person answers here keeps its card, showing what happened.
 */

const OUTCOMES: Record<HoldingsGrant['status'], string> = {
  reserved: 'Waiting for your details',
  offered: 'Waiting for your answer',
  accepted: 'Accepted',
  rejected: 'Declined',
  expired: 'Expired',
  canceled: 'Withdrawn by the issuer',
}

const outcome = (grant: HoldingsGrant) =>
  grant.status === 'rejected' && grant.rejectionReason?.startsWith('ineligible')
    ? 'Not eligible'
    : OUTCOMES[grant.status]

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '')

const shares = (n: number) => `${n} ${n === 1 ? 'share' : 'shares'}`

/** "40 shares · 500.00 EUR at 12.50 EUR as of 2026-11-01", or the shares alone without a value. */
export const holdingLine = (program: HoldingsProgram) => {
  const held = shares(program.accepted)
  if (program.tokenValue === null || program.acceptedValue === null) return held
  const currency = program.tokenValueCurrency ?? ''
  return `${held} · ${program.acceptedValue} ${currency} at ${program.tokenValue} ${currency} as of ${day(program.tokenValueCalculatedDate)}`
}

/** The card of a grant the page showed open, as it now is (its card object gone once decided). */
const cardOf = (grant: HoldingsGrant, before: RecipientGrant | undefined) =>
  grant.offer ??
  (before && {
    ...before,
    state: grant.status,
    ...(grant.rejectionReason ? { rejectionReason: grant.rejectionReason } : {}),
    ...(grant.acceptance ? { acceptedAt: grant.acceptance.at } : {}),
  })

export const HoldingsView = ({
  holdings,
  session,
  heading,
  reload,
  sessionEnded,
  signOut,
}: {
  holdings: Holdings
  session: string
  heading: RefObject<HTMLHeadingElement | null>
  reload: () => Promise<void>
  sessionEnded: () => void
  signOut: () => Promise<void>
}) => {
  // The cards this page showed, so a grant answered here keeps its card after the answer.
  const cards = useRef(new Map<string, RecipientGrant>())
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set())
  const [statement, setStatement] = useState<{ busy?: boolean; text?: string; error?: string }>({})
  const test = holdings.mode === 'TEST'

  const step =
    (name: 'identify' | 'accept' | 'decline') =>
    async (body: { grantId: string } & Record<string, unknown>) => {
      setAnswered((before) => new Set(before).add(body.grantId))
      await grantStep(session, name, body)
      await reload()
    }
  const actions: GrantActions = {
    identify: step('identify'),
    accept: step('accept'),
    decline: step('decline'),
    reload,
    isLost: isSessionOver,
    lost: sessionEnded,
  }

  const download = async () => {
    setStatement({ busy: true, text: 'Preparing your statement…' })
    try {
      const csv = await readStatement(session)
      saveText(
        csv,
        `holdings-${holdings.mode.toLowerCase()}-${new Date().toISOString().slice(0, 10)}.csv`,
      )
      setStatement({ text: 'Your statement is saved as a CSV file.' })
    } catch (error) {
      if (isSessionOver(error)) return sessionEnded()
      setStatement({ error: problemText(error) })
    }
  }

  const count = holdings.issuers.reduce((n, i) => n + i.programs.length, 0)
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Your holdings{test ? ' (TEST)' : ''}
      </h1>
      <p class="lede">
        For <strong>{holdings.email}</strong>, as of {new Date().toISOString().slice(0, 10)}.
      </p>
      {test && (
        <p class="test-note">
          <strong>TEST.</strong> These are grants from an issuer's TEST mode, for trying the flow:
          they hold no real shares. Your real (LIVE) holdings are reached from a LIVE e-mail.
        </p>
      )}
      <div class="actions no-print">
        <button type="button" disabled={statement.busy || count === 0} onClick={download}>
          Download statement (CSV)
        </button>
        <button type="button" disabled={count === 0} onClick={() => window.print()}>
          Print
        </button>
        <button type="button" class="danger-outline" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
      {statement.text && (
        <p class="status no-print" role="status">
          {statement.text}
        </p>
      )}
      {statement.error && (
        <p class="alert no-print" role="alert">
          {statement.error}
        </p>
      )}
      {count === 0 && (
        <p class="note">
          Nothing to show: no shares have been offered to this address
          {test ? ' in TEST mode' : ''}.
        </p>
      )}
      {holdings.issuers.map((issuer) => (
        <section key={issuer.issuerId} class="issuer" aria-labelledby={`issuer-${issuer.issuerId}`}>
          <h2 id={`issuer-${issuer.issuerId}`}>{issuer.name}</h2>
          {issuer.programs.map((program) => (
            <ProgramHoldings
              key={program.programId}
              program={program}
              actions={actions}
              cards={cards.current}
              answered={answered}
            />
          ))}
        </section>
      ))}
    </>
  )
}

const ProgramHoldings = ({
  program,
  actions,
  cards,
  answered,
}: {
  program: HoldingsProgram
  actions: GrantActions
  cards: Map<string, RecipientGrant>
  answered: ReadonlySet<string>
}) => {
  const id = `program-${program.programId}`
  const shown = program.grants.flatMap((grant) => {
    const card = isGrantOpen(grant.status) || answered.has(grant.grantId)
    const found = card ? cardOf(grant, cards.get(grant.grantId)) : undefined
    if (!found) return []
    cards.set(grant.grantId, found)
    // The program's description is shown once, above its cards.
    const { description: _, ...view } = found
    return [view]
  })
  const history = program.grants.filter((g) => !isGrantOpen(g.status))
  return (
    <section class="panel program" aria-labelledby={id}>
      <h3 id={id}>{program.name}</h3>
      {program.description && <p class="description">{program.description}</p>}
      <p class="holding">
        <span class="holding-label">You hold</span> {holdingLine(program)}
      </p>
      {program.tokenValue === null && (
        <p class="hint">The issuer has not set a value per share for this program yet.</p>
      )}
      {program.pending > 0 && (
        <p class="hint">{shares(program.pending)} offered to you and waiting for your answer.</p>
      )}
      {shown.map((grant) => (
        <GrantCard
          key={grant.grantId}
          grant={grant}
          actions={actions}
          heading={4}
          title={`Offer of ${shares(grant.amount)}`}
        />
      ))}
      {history.length > 0 && (
        <table class="history">
          <caption>History of {program.name}</caption>
          <thead>
            <tr>
              <th scope="col">Offered</th>
              <th scope="col">Shares</th>
              <th scope="col">Reason</th>
              <th scope="col">Outcome</th>
              <th scope="col">Terms accepted</th>
            </tr>
          </thead>
          <tbody>
            {history.map((grant) => (
              <tr key={grant.grantId}>
                <td>{day(grant.createdAt)}</td>
                <td class="number">{grant.amount}</td>
                <td>{grant.reason}</td>
                <td>
                  {outcome(grant)}
                  {grant.acceptance ? ` on ${day(grant.acceptance.at)}` : ''}
                  {grant.status === 'expired' ? ` on ${day(grant.expiresAt)}` : ''}
                </td>
                <td>
                  {grant.acceptance
                    ? grant.acceptance.termsVersion === null
                      ? 'No separate Terms'
                      : `Version ${grant.acceptance.termsVersion}`
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
