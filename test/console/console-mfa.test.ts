import { randomUUID } from 'node:crypto'
import jsQR from 'jsqr'
import * as OTPAuth from 'otpauth'
import type { Browser, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { cognitoCall } from '../support/cognito-call'
import {
  type ConsoleServer,
  checkPage,
  invitedMember,
  newContext,
  SET_UP_MS,
  startServerAndBrowser,
  visible,
  watchConsole,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const document: { activeElement: { textContent: string | null } | null }

const focusedText = (page: Page) =>
  page.evaluate(() => document.activeElement?.textContent?.trim() ?? '')

/**
 * Two-step sign-in with an authenticator app (TOTP), in a real browser against a real
 * `npm start` and its Cognito emulator: set up on the account page (the QR code, read back by a
 * QR reader and an OTP library we did not write, and the secret as text), a wrong first code
 * refused next to the field; sign-out, then a sign-in that asks for the code, refuses a wrong one
 * and takes the right one; turned off, after which the password alone signs in. Every code is
 * computed here from the secret the page shows (RFC 6238, by `otpauth`). Then the emulator's
 * side, over its JSON API: what Cognito refuses, it refuses.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

const PASSWORD = 'a long passphrase for the console'
/** An admin of the file's issuer, invited by the operator: their address and temporary password. */
const invite = (who: string) => invitedMember(server, 'admin', who)

const totpOf = (secret: string, label: string) =>
  new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  })

/** A code that is none of the codes valid around now (Cognito and the emulator take ±30 s). */
const wrongCode = (totp: OTPAuth.TOTP) => {
  const now = Date.now()
  const valid = new Set(
    [-60, -30, 0, 30, 60].map((s) => totp.generate({ timestamp: now + s * 1000 })),
  )
  for (let n = 0; ; n++) {
    const code = String((Number(totp.generate()) + 123_457 * (n + 1)) % 1_000_000).padStart(6, '0')
    if (!valid.has(code)) return code
  }
}

/** The text of the QR code on the page, read from a screenshot of it by jsQR. */
const readQr = async (page: Page) => {
  const png = PNG.sync.read(await page.locator('svg.qr').screenshot())
  const found = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
  if (!found) throw new Error('no QR code could be read from the account page')
  return found.data
}

const signIn = async (page: Page, email: string, password = PASSWORD) => {
  await visible(page.getByRole('heading', { name: 'Sign in' }))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

const serious = (list: string[]) =>
  list.filter(
    (p) => !/Failed to load resource: the server responded with a status of (400|401)/.test(p),
  )

it('sets up an authenticator app with a QR code, asks for its code at sign-in, refuses a wrong one, and turns it off', async () => {
  const { email, temporary } = await invite('mfa')
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const problems = watchConsole(page)

  await page.goto(`/app/accept?email=${encodeURIComponent(email)}`)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the new password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))

  // The account page, from the header: two-step sign-in is off.
  await page.getByRole('link', { name: 'Your account' }).click()
  await visible(page.getByRole('heading', { name: 'Your account' }))
  expect(new URL(page.url()).pathname).toBe(`/app/${server.seed.issuerId}/test/account`)
  await visible(page.getByText('Off: your password alone signs you in.'))
  await checkPage(page, 'account')

  // Set up: a QR code and the same secret as text.
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  await visible(page.getByRole('img', { name: /QR code to add/ }))
  // The button is gone; the focus is on the new section's heading, not lost.
  expect(await focusedText(page)).toBe('Set up an authenticator app')
  const secret = (await page.locator('#totp-secret').innerText()).replace(/\s+/g, '')
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/)
  // What an authenticator app reads from the QR code: an otpauth URI with that secret, the
  // console as issuer and the person's address as account.
  const issuer = `Virtual Shares (${new URL(server.baseUrl).hostname})`
  const uri = await readQr(page)
  expect(uri.startsWith(`otpauth://totp/${encodeURIComponent(issuer)}:`)).toBe(true)
  const scanned = OTPAuth.URI.parse(uri)
  expect(scanned).toBeInstanceOf(OTPAuth.TOTP)
  expect({
    secret: scanned.secret.base32,
    issuer: scanned.issuer,
    label: scanned.label,
    digits: scanned.digits,
  }).toEqual({ secret, issuer, label: email, digits: 6 })
  const totp = totpOf(secret, email)
  await checkPage(page, 'account-mfa-setup')

  // A wrong first code is refused next to the field, and nothing is turned on.
  const codeField = page.getByLabel('Code from the app')
  await codeField.fill('12345')
  await page.getByRole('button', { name: 'Verify and turn on' }).click()
  await visible(page.getByText('Enter the 6-digit code the app shows for Virtual Shares.'))
  await codeField.fill(wrongCode(totp))
  await page.getByRole('button', { name: 'Verify and turn on' }).click()
  await visible(page.getByText(/^This code is not right\./))
  expect(await codeField.getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'account-mfa-wrong-code')
  await page.reload()
  await visible(page.getByText('Off: your password alone signs you in.'))

  // Reloaded, the secret shown before is gone: a new one, then the right code turns it on.
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const secret2 = (await (await visible(page.locator('#totp-secret'))).innerText()).replace(
    /\s+/g,
    '',
  )
  expect(secret2).not.toBe(secret)
  const totp2 = totpOf(secret2, email)
  await page.getByLabel('Code from the app').fill(totp2.generate())
  await page.getByRole('button', { name: 'Verify and turn on' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Two-step sign-in is on.' }))
  await visible(page.getByText('On: signing in asks for a code from your authenticator app.'))
  expect(await focusedText(page)).toBe('Two-step sign-in')
  await checkPage(page, 'account-mfa-on')

  // Signed out, the password alone no longer signs in: the app's code is asked for.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signIn(page, email)
  await visible(page.getByRole('heading', { name: 'Enter the code from your app' }))
  const signInCode = page.getByLabel('Code from your authenticator app')
  expect(await signInCode.evaluate((el) => el === document.activeElement)).toBe(true)
  await checkPage(page, 'sign-in-mfa')
  await signInCode.fill(wrongCode(totp2))
  await page.getByRole('button', { name: 'Verify and sign in' }).click()
  await visible(page.getByText(/^This code is not right\./))
  expect(await signInCode.getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'sign-in-mfa-wrong-code')
  // The same sign-in goes on with the right code (spaces as apps show them are fine).
  const right = totp2.generate()
  await signInCode.fill(`${right.slice(0, 3)} ${right.slice(3)}`)
  await page.getByRole('button', { name: 'Verify and sign in' }).click()
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))

  // The session of a sign-in with a code survives a reload (its refresh token is kept).
  await page.reload()
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))

  // Turned off (after a confirmation), the password alone signs in again.
  await page.getByRole('link', { name: 'Your account' }).click()
  await page.getByRole('button', { name: 'Turn off two-step sign-in' }).click()
  const dialog = await visible(page.getByRole('dialog', { name: 'Turn off two-step sign-in?' }))
  await checkPage(page, 'account-mfa-turn-off')
  await dialog.getByRole('button', { name: 'Turn off' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Two-step sign-in is off' }))
  await visible(page.getByText('Off: your password alone signs you in.'))
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signIn(page, email)
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))

  expect(serious(problems)).toEqual([])
  await context.close()
})

const refused = (type: string, message: string | RegExp) => ({
  ok: false,
  type,
  message: typeof message === 'string' ? message : expect.stringMatching(message),
})

it('emulator: checks the access token, the first code, the challenge session and the code, as Cognito does', async () => {
  const { email, temporary } = await invite('mfa-api')
  const first = await cognitoCall(server, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: temporary },
  })
  expect(first.ok && first.data.ChallengeName).toBe('NEW_PASSWORD_REQUIRED')
  if (!first.ok) throw new Error('unreachable')
  const accepted = await cognitoCall(server, 'RespondToAuthChallenge', {
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    Session: first.data.Session,
    ChallengeResponses: {
      USERNAME: first.data.ChallengeParameters?.USER_ID_FOR_SRP,
      NEW_PASSWORD: PASSWORD,
    },
  })
  if (!accepted.ok) throw new Error(`not accepted: ${accepted.message}`)
  const accessToken = accepted.data.AuthenticationResult?.AccessToken
  if (!accessToken) throw new Error(`no access token: ${JSON.stringify(accepted.data)}`)

  // A token with a changed payload (the signature no longer matches) is refused.
  const [header, payload, signature] = accessToken.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url')}.${signature}`
  expect(await cognitoCall(server, 'AssociateSoftwareToken', { AccessToken: forged })).toEqual(
    refused('NotAuthorizedException', 'Invalid Access Token'),
  )
  expect(
    await cognitoCall(server, 'SetUserMFAPreference', {
      AccessToken: forged,
      SoftwareTokenMfaSettings: { Enabled: false },
    }),
  ).toEqual(refused('NotAuthorizedException', 'Invalid Access Token'))

  // A wrong first code: EnableSoftwareTokenMFAException, and MFA stays off.
  const associated = await cognitoCall(server, 'AssociateSoftwareToken', {
    AccessToken: accessToken,
  })
  if (!associated.ok) throw new Error(associated.message)
  const { SecretCode: secretCode } = associated.data
  if (!secretCode) throw new Error(`no secret code: ${JSON.stringify(associated.data)}`)
  const totp = totpOf(secretCode, email)
  expect(
    await cognitoCall(server, 'VerifySoftwareToken', {
      AccessToken: accessToken,
      UserCode: wrongCode(totp),
    }),
  ).toEqual(
    refused('EnableSoftwareTokenMFAException', 'Code mismatch and fail enable Software Token MFA'),
  )
  const before = await cognitoCall(server, 'GetUser', { AccessToken: accessToken })
  expect(before.ok && (before.data.UserMFASettingList ?? [])).toEqual([])
  expect(
    await cognitoCall(server, 'VerifySoftwareToken', {
      AccessToken: accessToken,
      UserCode: totp.generate(),
    }),
  ).toMatchObject({ ok: true, data: { Status: 'SUCCESS' } })
  expect(
    await cognitoCall(server, 'SetUserMFAPreference', {
      AccessToken: accessToken,
      SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
    }),
  ).toMatchObject({ ok: true })

  // The password now leads to the SOFTWARE_TOKEN_MFA challenge.
  const signIn = await cognitoCall(server, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: PASSWORD },
  })
  if (!signIn.ok) throw new Error(signIn.message)
  expect(signIn.data.ChallengeName).toBe('SOFTWARE_TOKEN_MFA')
  expect(signIn.data.AuthenticationResult).toBeUndefined()
  const username = signIn.data.ChallengeParameters?.USER_ID_FOR_SRP
  const challenge = signIn.data.Session
  if (!username || !challenge) throw new Error(`no challenge: ${JSON.stringify(signIn.data)}`)
  const answer = (session: string, code: string) =>
    cognitoCall(server, 'RespondToAuthChallenge', {
      ChallengeName: 'SOFTWARE_TOKEN_MFA',
      Session: session,
      ChallengeResponses: { USERNAME: username, SOFTWARE_TOKEN_MFA_CODE: code },
    })

  // A code without the password's session does not sign in, even the right one.
  expect(await answer(randomUUID(), totp.generate())).toEqual(
    refused('NotAuthorizedException', /session/),
  )
  // A wrong code is CodeMismatchException; the same session then takes the right one, once.
  expect(await answer(challenge, wrongCode(totp))).toEqual(
    refused('CodeMismatchException', 'Invalid code received for user'),
  )
  const signedIn = await answer(challenge, totp.generate())
  if (!signedIn.ok) throw new Error(signedIn.message)
  expect(signedIn.data.AuthenticationResult?.AccessToken).toEqual(expect.any(String))
  expect(await answer(challenge, totp.generate())).toEqual(
    refused('NotAuthorizedException', /session/),
  )
  // Its refresh token refreshes.
  const refreshed = await cognitoCall(server, 'InitiateAuth', {
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    AuthParameters: { REFRESH_TOKEN: signedIn.data.AuthenticationResult?.RefreshToken },
  })
  expect(refreshed.ok && typeof refreshed.data.AuthenticationResult?.AccessToken).toBe('string')
})
