import { addMember, auditLog, manageCall } from '../manage/grants-support'
import {
  type Call,
  expectNothingWritten,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  startApi,
} from '../support/api'
import { type Person, signUpPerson } from '../support/identity'

/**
 * A line break inside a one-line text would put what follows on a line of its own: a recipient's
 * name `Ann\u2028Bcc: x@evil.com` shows as a second line in the offer mail. Every character that
 * breaks a line (LF, VT, FF, CR, NEL, U+2028, U+2029) is refused where CR and LF are, through the
 * local server: the grant API (recipient.name, reason), a batch's rows, a program's name, a webhook
 * endpoint's description. Nothing is written. The rule itself: test/unit/text-rules.test.ts.
 */
const LINE_BREAKS = [
  ['LF', '\n'],
  ['VT', '\u000B'],
  ['FF', '\u000C'],
  ['CR', '\r'],
  ['NEL', '\u0085'],
  ['U+2028', '\u2028'],
  ['U+2029', '\u2029'],
] as const
const RULE = 'must not contain control characters'

let api: Awaited<ReturnType<typeof startApi>>
let issuer: Issuer
let admin: Person
beforeAll(async () => {
  api = await startApi()
  issuer = await newIssuer()
  admin = await signUpPerson()
  await addMember(issuer.issuerId, admin, 'admin')
})
afterAll(() => api.close())

const fieldErrors = (call: Call) =>
  (call.body.errors as { field: string; message: string }[]).map((e) => [e.field, e.message])

/** Runs `act`: no grant, no counter move, no audit entry. */
const nothingWritten = async (act: () => Promise<void>) => {
  const audit = (await auditLog(issuer.issuerId)).length
  await expectNothingWritten(issuer.programs.TEST, act)
  expect((await auditLog(issuer.issuerId)).length).toBe(audit)
}

it.each(LINE_BREAKS)(
  'the grant API refuses %s in recipient.name and reason with 400 validation_failed, naming both, writing nothing',
  async (_, br) => {
    let call: Call | undefined
    await nothingWritten(async () => {
      call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody({
          recipient: { email: 'ann@example.com', name: `Ann${br}Bcc: x@evil.com` },
          reason: `Bonus${br}for Q3`,
        }),
      )
    })
    expectProblem(call as Call, 400, 'validation_failed')
    expect(fieldErrors(call as Call)).toEqual([
      ['recipient.name', `recipient.name ${RULE}`],
      ['reason', `reason ${RULE}`],
    ])
  },
)

it("a batch refuses NEL, U+2028 and U+2029 in a row's name and reason", async () => {
  const path = `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.TEST}/grant-batches`
  const csv = [
    'email,amount,name,reason',
    'ann@example.com,1,Ann,Spring',
    'bob@example.com,1,Bob\u2028Bcc: x@evil.com,Spring',
    'cat@example.com,1,Cat,Spring\u2029x',
    'dee@example.com,1,Dee\u0085x,Spring',
  ].join('\r\n')
  let preview: Call | undefined
  await nothingWritten(async () => {
    preview = await manageCall(api.baseUrl, admin, 'POST', path, {
      body: { csv, reason: 'Launch', dryRun: true },
    })
  })
  expect((preview as Call).status).toBe(200)
  expect((preview as Call).body.counts).toEqual({ total: 4, valid: 1, invalid: 3, duplicates: 0 })
  expect(
    ((preview as Call).body.problems as { row: number; errors: { field: string }[] }[]).map((p) => [
      p.row,
      p.errors,
    ]),
  ).toEqual([
    [3, [{ field: 'name', message: `name ${RULE}` }]],
    [4, [{ field: 'reason', message: `reason ${RULE}` }]],
    [5, [{ field: 'name', message: `name ${RULE}` }]],
  ])
})

it("the management API refuses U+2028 in a program's name and every line break in a webhook endpoint's description, writing nothing", async () => {
  const programs = `/manage/issuers/${issuer.issuerId}/programs`
  const before = (await manageCall(api.baseUrl, admin, 'GET', programs)).body.data as unknown[]
  const audit = (await auditLog(issuer.issuerId)).length
  const program = await manageCall(api.baseUrl, admin, 'POST', programs, {
    body: { name: 'Spring\u2028Bcc: x@evil.com', mode: 'TEST' },
  })
  expectProblem(program, 400, 'validation_failed')
  expect(fieldErrors(program)).toEqual([
    ['name', 'name must be 1 to 100 characters without control characters'],
  ])
  expect((await manageCall(api.baseUrl, admin, 'GET', programs)).body.data).toEqual(before)

  const endpoints = `/manage/issuers/${issuer.issuerId}/webhook-endpoints`
  for (const [, br] of LINE_BREAKS) {
    const webhook = await manageCall(api.baseUrl, admin, 'POST', endpoints, {
      body: {
        url: 'https://hooks.example.com/in',
        mode: 'TEST',
        kinds: ['grant.accepted'],
        description: `Our CRM${br}x`,
      },
    })
    expectProblem(webhook, 400, 'validation_failed')
    expect(fieldErrors(webhook)).toEqual([
      ['description', 'must be one line without control characters'],
    ])
  }
  expect((await manageCall(api.baseUrl, admin, 'GET', endpoints)).body.endpoints).toEqual([])
  expect((await auditLog(issuer.issuerId)).length).toBe(audit)
})
