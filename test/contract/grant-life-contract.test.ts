import { makeGrantLife } from '../../functions/core/grant-life'
import { newId } from '../../functions/domain/ids'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { addMember, manageCall } from '../manage/grants-support'
import { adminTables, grantBody, type Issuer, newIssuer, postGrant, request } from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { type Person, signUpPerson } from '../support/identity'
import { documentClient, wallClock } from '../support/runtime'

/**
 * openapi.json against real answers of issue 19's recipient and management routes (the
 * integrator routes have theirs in test/http/grant-life.http.test.ts): every answer produced here
 * is a status the document lists for its operation, with a body its schema accepts.
 */
// The links route hands its request to the OfferMail queue: the local pipeline's, with its consumers.
const api = useApi({ pipeline: true })
let a: Issuer
let admin: Person
beforeAll(async () => {
  a = await newIssuer({ pool: 100 })
  admin = await signUpPerson()
  await addMember(a.issuerId, admin, 'admin')
})

const { check } = contractCheck()

const post = (path: string, body: unknown) =>
  request(api.baseUrl, 'POST', path, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe("the recipient's routes", () => {
  it('answer as the document says: the page, identify, decline, a new link, and the refusals', async () => {
    const made = await postGrant(
      api.baseUrl,
      a.programs.TEST,
      a.keys.TEST,
      grantBody({ recipient: { email: 'contract@example.com', name: 'Con Tract' } }),
    )
    const grantId = made.body.id as string
    // The link the mail worker would send: a real token, issued by the use case.
    const life = makeGrantLife({
      store: new DynamoDbGrantLifeStore(documentClient, adminTables),
      clock: () => wallClock.now(),
    })
    const link = await life.issueOfferLink(grantId)
    const token = link?.token as string

    check('/recipient/offer', 'post', await post('/recipient/offer', { token }))
    check('/recipient/offer', 'post', await post('/recipient/offer', { token: 'x'.repeat(43) }))
    check('/recipient/offer', 'post', await post('/recipient/offer', {}))
    check('/recipient/identify', 'post', await post('/recipient/identify', { token, grantId }))
    check(
      '/recipient/accept',
      'post',
      await post('/recipient/accept', { token, grantId, termsVersion: 1 }),
    )
    check(
      '/recipient/identify',
      'post',
      await post('/recipient/identify', { token, grantId, name: 'Con Tract' }),
    )
    check('/recipient/decline', 'post', await post('/recipient/decline', { token, grantId }))
    check(
      '/recipient/decline',
      'post',
      await post('/recipient/decline', { token, grantId: newId('grant') }),
    )
    check('/recipient/links', 'post', await post('/recipient/links', { email: 'x@example.com' }))
    check('/recipient/links', 'post', await post('/recipient/links', { email: 'nope' }))
  })
})

describe('the management routes of a grant', () => {
  it('answer as the document says', async () => {
    const made = await postGrant(api.baseUrl, a.programs.TEST, a.keys.TEST, grantBody())
    const grantId = made.body.id as string
    const base = `/manage/issuers/${a.issuerId}`
    const call = (method: string, path: string, body?: unknown) =>
      manageCall(api.baseUrl, admin, method, path, body === undefined ? {} : { body })
    const g = '/manage/issuers/{issuerId}/grants/{grantId}'
    check(g, 'get', await call('GET', `${base}/grants/${grantId}`))
    check(g, 'get', await call('GET', `${base}/grants/${newId('grant')}`))
    check(g, 'get', await manageCall(api.baseUrl, undefined, 'GET', `${base}/grants/${grantId}`))
    check(
      `${g}/correct-email`,
      'post',
      await call('POST', `${base}/grants/${grantId}/correct-email`, { email: 'new@example.com' }),
    )
    check(
      `${g}/correct-email`,
      'post',
      await call('POST', `${base}/grants/${grantId}/correct-email`, { email: 'nope' }),
    )
    check(`${g}/resend`, 'post', await call('POST', `${base}/grants/${grantId}/resend`))
    check(`${g}/resend`, 'post', await call('POST', `${base}/grants/${grantId}/resend`))
    check(`${g}/cancel`, 'post', await call('POST', `${base}/grants/${grantId}/cancel`))
    check(`${g}/resend`, 'post', await call('POST', `${base}/grants/${grantId}/resend`))

    const p = '/manage/issuers/{issuerId}/programs/{programId}'
    check(
      `${p}/offer-settings`,
      'patch',
      await call('PATCH', `${base}/programs/${a.programs.TEST}/offer-settings`, {
        offerDays: 14,
        terms: { text: 'The terms.' },
      }),
    )
    check(
      `${p}/offer-settings`,
      'patch',
      await call('PATCH', `${base}/programs/${a.programs.TEST}/offer-settings`, { offerDays: 0 }),
    )
    check(
      `${p}/offer-preview`,
      'post',
      await call('POST', `${base}/programs/${a.programs.TEST}/offer-preview`, grantBody()),
    )
    check(
      `${p}/offer-preview`,
      'post',
      await call('POST', `${base}/programs/${a.programs.TEST}/offer-preview`, { amount: 0 }),
    )
    check('/manage/issuers/{issuerId}/inbox', 'get', await call('GET', `${base}/inbox`))
    check('/manage/issuers/{issuerId}/inbox', 'get', await call('GET', `${base}/inbox?limit=0`))
  })
})
