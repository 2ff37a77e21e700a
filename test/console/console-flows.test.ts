import { randomUUID } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import {
  adminCli,
  type ConsoleServer,
  checkPage,
  mailTo,
  newContext,
  SET_UP_MS,
  startServerAndBrowser,
  tabTo,
  temporaryPasswordIn,
  visible,
  watchConsole,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const document: {
  activeElement: {
    tagName: string
    getAttribute(name: string): string | null
    textContent: string | null
  } | null
}
declare const navigator: { clipboard: { readText(): Promise<string> } }
declare const sessionStorage: Record<string, string>
declare const localStorage: Record<string, string>

/**
 * The console's other flows in the browser against a real `npm start`: the main flows by keyboard
 * alone; sign-in, its errors, a token refreshed on a 401 and on reload, sign-out, a forgotten
 * password reset with the mailed code; the issuer switcher; rolling a key; the last-owner rule;
 * and the page for someone in no issuer. Each page is checked by axe-core and photographed.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

const PASSWORD = 'a long passphrase for the console'
const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`

/** Someone invited by the operator to the file's issuer (and others); the temporary password. */
const invite = async (email: string, issuerId: string, role: string) => {
  await adminCli(server, [
    'member',
    'invite',
    '--issuer',
    issuerId,
    '--email',
    email,
    '--role',
    role,
  ])
}

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement
    return el ? `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent ?? ''}` : ''
  })

/**
 * What has the focus once it settles on `expected`, or after 5 s: the console moves the focus to
 * a new page's title in an effect after the page renders, so a check the moment the heading
 * shows can come a frame early (CI saw it once).
 */
const focusedOn = async (page: Page, expected: string) => {
  const deadline = Date.now() + 5_000
  for (;;) {
    const now = await focused(page)
    if (now === expected || Date.now() > deadline) return now
    await page.waitForTimeout(50)
  }
}

const serious = (list: string[]) =>
  list.filter(
    (p) => !/Failed to load resource: the server responded with a status of (400|401|409)/.test(p),
  )

it('works by keyboard alone: accept, switch modes, create and close a program, create and copy a key, send one, send to many', async () => {
  const email = address('keys')
  await invite(email, server.seed.issuerId, 'admin')
  const temporary = temporaryPasswordIn(await mailTo(server, email))
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const problems = watchConsole(page)
  const key = page.keyboard

  // Accept the invitation: Tab between the fields, Enter submits.
  await page.goto('/app/accept')
  await visible(page.getByRole('heading', { name: 'Accept your invitation' }))
  await tabTo(page, page.getByLabel('E-mail address'))
  await key.type(email)
  await key.press('Tab')
  await key.type(temporary)
  await key.press('Tab')
  await key.type(PASSWORD)
  await key.press('Tab')
  await key.type(PASSWORD)
  await key.press('Enter')
  await visible(page.getByRole('heading', { name: 'Programs' }))

  // The mode switch: Space turns Test mode off and on.
  await tabTo(page, page.getByRole('switch', { name: 'Test mode' }))
  await key.press('Space')
  await visible(page.getByRole('note').filter({ hasText: 'Live mode' }))
  await visible(page.getByRole('link', { name: 'Demo LIVE program' }))
  await checkPage(page, 'programs-live-seeded')
  await tabTo(page, page.getByRole('switch', { name: 'Test mode' }))
  await key.press('Space')
  await visible(page.getByRole('note').filter({ hasText: 'Test mode' }))

  // Create a program, pause and resume it, then close it: Escape cancels the confirmation.
  await tabTo(page, page.getByLabel('Name', { exact: true }))
  await key.type('Keyboard program')
  await tabTo(page, page.getByLabel('Pool (optional)'))
  await key.type('50')
  await key.press('Enter')
  await visible(page.getByRole('status').filter({ hasText: 'Program Keyboard program created' }))
  await tabTo(page, page.getByRole('button', { name: 'Pause Keyboard program' }))
  await key.press('Enter')
  await visible(page.getByRole('status').filter({ hasText: 'Keyboard program is paused' }))
  await tabTo(page, page.getByRole('button', { name: 'Resume Keyboard program' }))
  await key.press('Enter')
  await visible(page.getByRole('status').filter({ hasText: 'Keyboard program is active again' }))
  // The list reloads after the change: act on the row once it shows the program active, as a
  // person would.
  await visible(page.getByRole('button', { name: 'Pause Keyboard program' }))
  const closeButton = page.getByRole('button', { name: 'Close Keyboard program' })
  await tabTo(page, closeButton)
  await key.press('Enter')
  const dialog = await visible(page.getByRole('dialog', { name: 'Close Keyboard program?' }))
  expect(await dialog.innerText()).toContain('Closing is final.')
  expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
  await checkPage(page, 'close-dialog')
  await key.press('Escape')
  await dialog.waitFor({ state: 'hidden' })
  expect(await closeButton.evaluate((b) => b === document.activeElement)).toBe(true)
  expect(
    await page
      .getByRole('row', { name: /Keyboard program/ })
      .getByText('active')
      .count(),
  ).toBe(1)
  await key.press('Enter')
  await visible(page.getByRole('dialog', { name: 'Close Keyboard program?' }))
  // Escape then Enter at once: shut, and open again (the browser's late `close` event used to
  // undo the second press, and the dialog stayed shut).
  await key.press('Escape')
  await key.press('Enter')
  await visible(page.getByRole('dialog', { name: 'Close Keyboard program?' }))
  await tabTo(page, page.getByRole('dialog').getByRole('button', { name: 'Close program' }))
  await key.press('Enter')
  await visible(page.getByRole('status').filter({ hasText: 'Keyboard program is closed for good' }))
  await visible(page.getByRole('row', { name: /Keyboard program.*closed/ }))

  // A key: created and copied with the keyboard.
  await tabTo(page, page.getByRole('link', { name: 'API keys' }))
  await key.press('Enter')
  await visible(page.getByRole('heading', { name: 'API keys' }))
  // Following a link moves the focus to the new page's title, as a page load would.
  expect(await focusedOn(page, 'H1 API keys')).toBe('H1 API keys')
  await tabTo(page, page.getByRole('button', { name: 'Create TEST key' }))
  await key.press('Enter')
  const secret = await (
    await visible(page.getByRole('textbox', { name: /^Secret of key/ }))
  ).inputValue()
  await tabTo(page, page.getByRole('button', { name: 'Copy key' }))
  await key.press('Enter')
  await visible(page.getByText('Copied to the clipboard.'))
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  await tabTo(page, page.getByRole('button', { name: 'I have stored the key' }))
  await key.press('Enter')

  // Send one grant: fields, preview, send.
  await tabTo(page, page.getByRole('link', { name: 'Programs' }))
  await key.press('Enter')
  await tabTo(page, page.getByRole('link', { name: 'Demo TEST program' }))
  await key.press('Enter')
  await visible(page.getByRole('heading', { name: 'Demo TEST program' }))
  await tabTo(page, page.getByLabel('Recipient e-mail', { exact: true }))
  await key.type('kim@example.com')
  await tabTo(page, page.getByLabel('Reason', { exact: true }))
  await key.type('Keyboard grant')
  await tabTo(page, page.getByLabel('Amount', { exact: true }))
  await key.type('2')
  await key.press('Enter')
  await visible(page.getByRole('region', { name: 'Grant preview' }))
  await tabTo(page, page.getByRole('button', { name: 'Send grant' }))
  await key.press('Enter')
  await visible(page.getByRole('status').filter({ hasText: 'Granted 2 shares to kim@example.com' }))

  // Send to many: the CSV typed into its text box, checked, sent.
  await tabTo(page, page.getByRole('link', { name: 'Send to many from a CSV file' }))
  await key.press('Enter')
  await tabTo(page, page.getByLabel('CSV text'))
  await key.insertText(
    'email,amount,reason\nlee@example.com,1,Keyboard batch\nmo@example.com,2,Keyboard batch\n',
  )
  await tabTo(page, page.getByRole('button', { name: 'Check the CSV' }))
  await key.press('Enter')
  await visible(page.getByText('Every row is ready to send.'))
  await tabTo(page, page.getByRole('button', { name: 'Send 2 grants' }))
  await key.press('Enter')
  await visible(page.getByText('Done: 2 of 2 rows done, 2 granted, 0 failed, 0 pending.'))

  expect(serious(problems)).toEqual([])
  await context.close()
})

it('signs in and out, refreshes on a 401 and on reload, resets a forgotten password, switches issuers, rolls a key, and keeps the last owner', async () => {
  const email = address('owner')
  const beta = await adminCli(server, ['issuer', 'create', '--name', 'Beta Corp'])
  await invite(email, beta.issuerId, 'owner')
  // Invited again by another issuer before the first sign-in: the newest mail carries a new
  // temporary password and names both issuers, so it opens every invitation.
  await invite(email, server.seed.issuerId, 'admin')
  const newest = await mailTo(server, email)
  expect(newest.text).toContain('Beta Corp')
  expect(newest.text).toContain('Demo issuer')
  const temporary = temporaryPasswordIn(newest)

  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const problems = watchConsole(page)

  // The temporary password on the sign-in page asks for a new password (the invitation's link
  // leads there), with the policy shown.
  await page.goto('/app/')
  await visible(page.getByRole('heading', { name: 'Sign in' }))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill('not the password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByText('The e-mail address or the password is not right.'))
  expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'sign-in-error')
  await page.getByLabel('Password').fill(temporary)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Choose your password' }))
  await visible(page.getByText('At least 15 characters'))
  await checkPage(page, 'sign-in-new-password')
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the new password').fill(`${PASSWORD}!`)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByText('The two passwords are not the same.'))
  await page.getByLabel('Repeat the new password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))

  // Two issuers: the switcher, sorted by name; the role is the one in each.
  const switcher = page.getByLabel('Issuer', { exact: true })
  expect(await switcher.locator('option').allTextContents()).toEqual([
    'Beta Corp (owner)',
    'Demo issuer (admin)',
  ])
  await visible(page.getByText(`${email} · owner`))
  await switcher.selectOption({ label: 'Demo issuer (admin)' })
  await visible(page.getByText(`${email} · admin`))
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))
  expect(new URL(page.url()).pathname).toBe(`/app/${server.seed.issuerId}/test/programs`)
  await checkPage(page, 'issuer-switcher')

  // Sign out, then sign in with the new password; back in the last issuer.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'You are signed out.' }))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))

  // A 401 (an access token the service no longer takes) refreshes the tokens once and retries.
  const refreshes: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && (request.postData() ?? '').includes('REFRESH_TOKEN_AUTH')) {
      refreshes.push(request.url())
    }
  })
  let refused = 0
  await page.route('**/manage/issuers/*/keys?mode=TEST', async (route) => {
    if (refused++ === 0) {
      await route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: '{"message":"Unauthorized"}',
      })
    } else await route.continue()
  })
  await page.getByRole('link', { name: 'API keys' }).click()
  const seeded = `${server.seed.keys.TEST.slice(0, 8)}…${server.seed.keys.TEST.slice(-4)}`
  await visible(page.getByRole('row', { name: new RegExp(seeded) }))
  expect(refused).toBe(2)
  expect(refreshes).toHaveLength(1)
  await page.unroute('**/manage/issuers/*/keys?mode=TEST')

  // A reload keeps the session and the page: the refresh token is in sessionStorage, the access
  // token only in memory.
  await page.reload()
  await visible(page.getByRole('row', { name: new RegExp(seeded) }))
  expect(refreshes).toHaveLength(2)
  const stored = await page.evaluate(() => Object.keys(sessionStorage))
  expect(stored).toEqual(['vs.console.refreshToken'])
  expect(await page.evaluate(() => Object.values(localStorage).join(' '))).not.toMatch(/eyJ/)

  // Roll the seeded TEST key with an hour's grace: the new secret once, both keys work.
  await page.getByRole('button', { name: `Roll key ${seeded}` }).click()
  const roll = await visible(page.getByRole('dialog', { name: `Roll key ${seeded}?` }))
  await roll.getByLabel('The old key keeps working').selectOption({ label: 'For 1 hour' })
  await checkPage(page, 'roll-dialog')
  await roll.getByRole('button', { name: 'Roll key' }).click()
  await visible(page.getByRole('heading', { name: 'Your rolled TEST key' }))
  await visible(page.getByText(new RegExp(`The old key ${seeded} keeps working until`)))
  const rolled = await page.getByRole('textbox', { name: /^Secret of key/ }).inputValue()
  await checkPage(page, 'key-rolled')
  for (const apiKey of [server.seed.keys.TEST, rolled]) {
    const answer = await fetch(
      `${server.baseUrl}/programs/${server.seed.programs.TEST}/grant-tokens`,
      {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          recipient: { email: 'roll@example.com' },
          reason: 'Roll',
          amount: 1,
        }),
      },
    )
    expect(answer.status).toBe(201)
  }
  await page.getByRole('button', { name: 'I have stored the key' }).click()

  // The last owner of Beta Corp cannot step down: the rule is explained, the API's answer shown.
  await page.getByLabel('Issuer', { exact: true }).selectOption({ label: 'Beta Corp (owner)' })
  await page.getByRole('link', { name: 'Team' }).click()
  await visible(page.getByText('is the only owner. An issuer always keeps at least one owner'))
  await page.getByRole('combobox', { name: `Role of ${email}` }).selectOption('admin')
  await page.getByRole('button', { name: 'Save role' }).click()
  await visible(page.getByRole('alert').filter({ hasText: "This is the issuer's last owner" }))
  await checkPage(page, 'team-last-owner')

  // Forgot password: the code from the mail sink, a new password, signed in.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  await visible(page.getByRole('heading', { name: 'Reset your password' }))
  await page.getByLabel('E-mail address').fill(email)
  await checkPage(page, 'forgot-password')
  await page.getByRole('button', { name: 'Send code' }).click()
  await visible(page.getByLabel('Code'))
  const code = /Your code: (\S+)/.exec(
    (await mailTo(server, email, 'password reset')).text,
  )?.[1] as string
  await page.getByLabel('Code').fill(code)
  await page.getByLabel('New password', { exact: true }).fill('short')
  await page.getByLabel('Repeat the new password').fill('short')
  await page.getByRole('button', { name: 'Set new password' }).click()
  await visible(page.getByText('The password has 5 characters; it needs at least 15.'))
  await checkPage(page, 'forgot-password-code')
  const reset = 'another long passphrase, reset'
  await page.getByLabel('New password', { exact: true }).fill(reset)
  await page.getByLabel('Repeat the new password').fill(reset)
  await page.getByRole('button', { name: 'Set new password' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))

  // The old password is refused now, the new one signs in.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByText('The e-mail address or the password is not right.'))
  await page.getByLabel('Password').fill(reset)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))

  expect(serious(problems)).toEqual([])
  await context.close()
})

it('tells someone who belongs to no issuer, and lets them in once they do', async () => {
  const email = address('nobody')
  await invite(email, server.seed.issuerId, 'viewer')
  const temporary = temporaryPasswordIn(await mailTo(server, email))
  // The invitation is withdrawn before it is accepted: the account stays, with no issuer.
  await adminCli(server, ['member', 'remove', '--issuer', server.seed.issuerId, '--email', email])

  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const problems = watchConsole(page)
  await page.goto('/app/accept')
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the new password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByRole('heading', { name: 'You do not belong to an issuer yet' }))
  await checkPage(page, 'no-issuer')

  await invite(email, server.seed.issuerId, 'viewer')
  await page.getByRole('button', { name: 'Check again' }).click()
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))
  await visible(page.getByText(`${email} · viewer`))

  // An address in the console that is not theirs (typed, after signing in again): a plain "not
  // found", nothing of another issuer.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByRole('link', { name: 'Demo TEST program' }))
  await page.goto('/app/iss_00000000000000000000000000/test/programs')
  await visible(page.getByRole('heading', { name: 'Page not found' }))
  await checkPage(page, 'not-found')
  expect(serious(problems)).toEqual([])
  expect(await focused(page)).toBeTruthy()
  await context.close()
})
