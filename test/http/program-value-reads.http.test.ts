import { join, manage } from '../manage/programs-keys.support'
import { grantBody, type Issuer, newIssuer, postGrant, request } from '../support/api'
import { useApi } from '../support/api-harness'
import { type Person, signUpPerson } from '../support/identity'

/**
 * The value of a share on the reads (issue 32): the integrator's `GET /programs/{programId}`, the
 * management program view and the recipient balance show the current value; the balance's
 * `acceptedValue` is the accepted shares times it, exactly (3 × "0.10" is "0.30").
 */

const api = useApi()
let i: Issuer
let owner: Person

beforeAll(async () => {
  i = await newIssuer({ pool: 1000 })
  owner = await signUpPerson()
  await join(owner, i.issuerId, 'owner')
})

const withKey = (path: string, key: string, body?: unknown) =>
  request(api.baseUrl, body === undefined ? 'GET' : 'POST', path, {
    headers: {
      'x-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
const setValue = async (programId: string, body: object) => {
  const answer = await manage(
    api.baseUrl,
    owner,
    'POST',
    `/manage/issuers/${i.issuerId}/programs/${programId}/values`,
    body,
  )
  expect(answer.status).toBe(201)
  return answer
}
const balanceOf = (email: string) =>
  withKey(
    `/programs/${i.programs.TEST}/recipients/${encodeURIComponent(email)}/balance`,
    i.keys.TEST,
  )

it('shows no value (null) until one is set, then the current one on every read', async () => {
  const email = 'valued@example.com'
  for (const amount of [1, 2]) {
    const made = await postGrant(
      api.baseUrl,
      i.programs.TEST,
      i.keys.TEST,
      grantBody({ amount, recipient: { email } }),
    )
    expect(made.status).toBe(201)
    const moved = await withKey(
      `/programs/${i.programs.TEST}/grants/${made.body.id}/test-transition`,
      i.keys.TEST,
      { to: 'accepted' },
    )
    expect(moved.status).toBe(200)
  }
  const none = {
    tokenValue: null,
    tokenValueCurrency: null,
    tokenValueCalculatedDate: null,
  }
  expect((await withKey(`/programs/${i.programs.TEST}`, i.keys.TEST)).body).toMatchObject(none)
  expect((await balanceOf(email)).body).toMatchObject({ ...none, acceptedValue: null, accepted: 3 })

  await setValue(i.programs.TEST, { amount: '0.10', currency: 'EUR', asOf: '2026-05-01' })
  // A backdated entry changes nothing the reads show.
  await setValue(i.programs.TEST, { amount: '99', currency: 'USD', asOf: '2026-01-01' })
  const shown = {
    tokenValue: '0.10',
    tokenValueCurrency: 'EUR',
    tokenValueCalculatedDate: '2026-05-01',
  }
  expect((await withKey(`/programs/${i.programs.TEST}`, i.keys.TEST)).body).toMatchObject(shown)
  const balance = await balanceOf(email)
  expect(balance.status).toBe(200)
  expect(balance.body).toMatchObject({ ...shown, accepted: 3, acceptedValue: '0.30' })
  // No grants: the value of a share, and nothing accepted is worth "0.00".
  expect((await balanceOf('nobody@example.com')).body).toMatchObject({
    ...shown,
    acceptedValue: '0.00',
  })
  const view = await manage(
    api.baseUrl,
    owner,
    'GET',
    `/manage/issuers/${i.issuerId}/programs/${i.programs.TEST}`,
  )
  expect(view.body).toMatchObject(shown)
  // The other program of the issuer has its own value: none.
  expect((await withKey(`/programs/${i.programs.LIVE}`, i.keys.LIVE)).body).toMatchObject(none)
})
