import { BIDI_CONTROLS, showBidiControls } from '../../functions/domain/text-rules'
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
 * Bidirectional controls (U+202A to U+202E, U+2066 to U+2069) reorder what follows them:
 * `"\u202Egnp.exe"` shows as `exe.png`, and an unclosed one reverses the rest of a console page.
 * Every door that takes free text refuses them and names the field: the grant API (recipient.name,
 * reason), the console's send-one, a batch (its reason, and each row's name and reason), a program's
 * name. Nothing is written. The CLI's doors are in test/cli/admin-cli.test.ts.
 */
const CONTROLS = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
]
const RULE =
  'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)'

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

it('knows the nine controls, and nothing else (right-to-left text itself is welcome)', () => {
  for (const c of CONTROLS) expect(BIDI_CONTROLS.test(`a${c}b`)).toBe(true)
  for (const text of ['שלום', 'مرحبا', 'Zoë', 'a\u200Fb', 'a\u200Eb']) {
    expect(BIDI_CONTROLS.test(text)).toBe(false)
  }
  expect(showBidiControls('\u202Egnp.exe \u2066x\u2069')).toBe('\\u202Egnp.exe \\u2066x\\u2069')
})

it.each(CONTROLS.map((c) => [`U+${c.codePointAt(0)?.toString(16).toUpperCase()}`, c]))(
  'the grant API refuses %s in recipient.name and reason, naming both, writing nothing',
  async (_, c) => {
    let call: Call | undefined
    await nothingWritten(async () => {
      call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody({
          recipient: { email: 'ann@example.com', name: `${c}gnp.exe` },
          reason: `Bonus ${c}for Q3`,
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

it("the console's send-one refuses them, naming the field, writing nothing", async () => {
  let call: Call | undefined
  await nothingWritten(async () => {
    call = await manageCall(
      api.baseUrl,
      admin,
      'POST',
      `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.TEST}/grants`,
      {
        body: grantBody({
          recipient: { email: 'ann@example.com', name: 'Ann' },
          reason: 'a\u202Eb',
        }),
      },
    )
  })
  expectProblem(call as Call, 400, 'validation_failed')
  expect(fieldErrors(call as Call)).toEqual([['reason', `reason ${RULE}`]])
})

it("a batch refuses them in its reason, and in each row's name and reason", async () => {
  const path = `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.TEST}/grant-batches`
  const csv = [
    'email,amount,name,reason',
    'ann@example.com,1,Ann,Spring',
    'bob@example.com,1,\u202Egnp.exe,Spring',
    'cat@example.com,1,Cat,Spring \u2067x',
  ].join('\r\n')
  let refused: Call | undefined
  let preview: Call | undefined
  await nothingWritten(async () => {
    refused = await manageCall(api.baseUrl, admin, 'POST', path, {
      body: { csv, reason: '\u2066Launch', dryRun: true },
    })
    preview = await manageCall(api.baseUrl, admin, 'POST', path, {
      body: { csv, reason: 'Launch', dryRun: true },
    })
  })
  expectProblem(refused as Call, 400, 'validation_failed')
  expect(fieldErrors(refused as Call)).toEqual([['reason', `reason ${RULE}`]])
  expect((preview as Call).status).toBe(200)
  expect((preview as Call).body.counts).toEqual({ total: 3, valid: 1, invalid: 2, duplicates: 0 })
  expect(
    ((preview as Call).body.problems as { row: number; errors: { field: string }[] }[]).map((p) => [
      p.row,
      p.errors,
    ]),
  ).toEqual([
    [3, [{ field: 'name', message: `name ${RULE}` }]],
    [4, [{ field: 'reason', message: `reason ${RULE}` }]],
  ])
})

it("the management API refuses them in a program's name, naming the field, writing nothing", async () => {
  const path = `/manage/issuers/${issuer.issuerId}/programs`
  const before = (await manageCall(api.baseUrl, admin, 'GET', path)).body.data as unknown[]
  const audit = (await auditLog(issuer.issuerId)).length
  const call = await manageCall(api.baseUrl, admin, 'POST', path, {
    body: { name: 'Spring \u202Eexe.', mode: 'TEST' },
  })
  expectProblem(call, 400, 'validation_failed')
  expect(fieldErrors(call)).toEqual([['name', `name ${RULE}`]])
  expect((await manageCall(api.baseUrl, admin, 'GET', path)).body.data).toEqual(before)
  expect((await auditLog(issuer.issuerId)).length).toBe(audit)
})
