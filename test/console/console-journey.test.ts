import type { Browser, Page } from 'playwright-core'
import {
  adminCli,
  type ConsoleServer,
  checkPage,
  downloadedText,
  mailTo,
  newContext,
  SET_UP_MS,
  startServerAndBrowser,
  temporaryPasswordIn,
  visible,
  watchConsole,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const document: { cookie: string }
declare const navigator: { clipboard: { readText(): Promise<string> } }
declare const sessionStorage: Record<string, string> & { length: number }
declare const localStorage: Record<string, string>

/**
 * The journey, in a real browser against a real `npm start` (DynamoDB Local, the Cognito
 * emulator, the mail sink, the built console at /app/ with its security headers): from the
 * operator's invitation to a revoked key, each page checked by axe-core and photographed.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

const PASSWORD = 'correct horse battery staple'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const grantWithKey = (programId: string, key: string, body: unknown) =>
  fetch(`${server.baseUrl}/programs/${programId}/grant-tokens`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** Accepts an invitation in the browser: the temporary password from the mail, then our own. */
const acceptInvitation = async (page: Page, email: string, temporary: string, name: string) => {
  await visible(page.getByRole('heading', { name: 'Accept your invitation' }))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the new password').fill(PASSWORD)
  await checkPage(page, name)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))
}

it('from the operator’s invitation to a revoked key, in the browser', async () => {
  // The same names every run, as the README's images show them (no other file uses them).
  const owner = 'alex@acme.example'
  const viewer = 'vic@acme.example'

  // The operator creates the issuer and invites its first owner with the admin CLI.
  const issuer = await adminCli(server, ['issuer', 'create', '--name', 'Acme Rewards'])
  const issuerId = issuer.issuerId as string
  await adminCli(server, [
    'member',
    'invite',
    '--issuer',
    issuerId,
    '--email',
    owner,
    '--role',
    'owner',
  ])

  // The invitation in the mail sink links to the console under /app/.
  const invitation = await mailTo(server, owner)
  const link = /(http:\/\/\S+\/app\/)/.exec(invitation.text)?.[1] as string
  expect(link).toBeDefined()
  const temporary = temporaryPasswordIn(invitation)

  const ownerContext = await newContext(browser, server.baseUrl)
  const page = await ownerContext.newPage()
  const problems = watchConsole(page)
  await page.goto(new URL(link).pathname)
  await visible(page.getByRole('heading', { name: 'Sign in' }))
  await checkPage(page, 'sign-in')
  await page.getByRole('link', { name: 'Accept an invitation' }).click()

  // The policy is on the page before anything is sent; a short password is refused next to its
  // field, before any call.
  await visible(page.getByRole('heading', { name: 'Accept your invitation' }))
  await visible(page.getByText('At least 15 characters'))
  await page.getByLabel('E-mail address').fill(owner)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill('too short')
  await page.getByLabel('Repeat the new password').fill('too short')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  const newPassword = page.getByLabel('New password', { exact: true })
  expect(await newPassword.getAttribute('aria-invalid')).toBe('true')
  await visible(page.getByText('The password has 9 characters; it needs at least 15.'))
  await checkPage(page, 'accept-invitation-error')
  await acceptInvitation(page, owner, temporary, 'accept-invitation')

  // Signed in: the issuer's TEST programs, Test mode clearly shown.
  expect(new URL(page.url()).pathname).toBe(`/app/${issuerId}/test/programs`)
  await visible(page.getByRole('note').filter({ hasText: 'Test mode' }))
  expect(await page.getByRole('switch', { name: 'Test mode' }).isChecked()).toBe(true)
  await visible(page.getByText(`${owner} · owner`))
  await checkPage(page, 'programs-empty')

  // A TEST program with a pool.
  await page.getByLabel('Name', { exact: true }).fill('Referrals')
  expect(await page.getByRole('radio', { name: 'TEST' }).isChecked()).toBe(true)
  await page.getByLabel('Pool (optional)').fill('1000')
  await page.getByRole('button', { name: 'Create program' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Program Referrals created' }))
  const gauge = await visible(page.getByRole('meter', { name: 'Pool used by Referrals' }))
  expect(await gauge.getAttribute('aria-valuetext')).toBe('0 of 1,000 issued')
  const programHref = (await page
    .getByRole('link', { name: 'Referrals' })
    .getAttribute('href')) as string
  const programId = programHref.split('/').pop() as string
  expect(programId).toMatch(/^prg_/)

  // The LIVE side is apart: the switch shows LIVE programs (none), and back.
  await page.getByRole('switch', { name: 'Test mode' }).uncheck()
  await visible(page.getByText('No LIVE programs yet.'))
  expect(await page.getByRole('note').filter({ hasText: 'Test mode' }).count()).toBe(0)
  await checkPage(page, 'programs-live')
  await page.getByRole('switch', { name: 'Test mode' }).check()
  await visible(page.getByRole('link', { name: 'Referrals' }))

  // A TEST key: the secret once, with a copy button and a warning.
  await page.getByRole('link', { name: 'API keys' }).click()
  await visible(page.getByRole('heading', { name: 'API keys' }))
  await page.getByRole('button', { name: 'Create TEST key' }).click()
  const secretField = await visible(page.getByRole('textbox', { name: /^Secret of key key_/ }))
  const secret = await secretField.inputValue()
  expect(secret).toMatch(/^vs_test_[0-9A-Za-z]{30}$/)
  await visible(page.getByText('Copy this secret now: it is shown only once.'))
  await page.getByRole('button', { name: 'Copy key' }).click()
  await visible(page.getByText('Copied to the clipboard.'))
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  await checkPage(page, 'key-reveal', 'console-key-reveal.png')
  await page.getByRole('button', { name: 'I have stored the key' }).click()
  const masked = `${secret.slice(0, 8)}…${secret.slice(-4)}`
  await visible(page.getByRole('row', { name: new RegExp(masked) }))
  // Gone from the page, and never kept by the browser.
  expect(await page.content()).not.toContain(secret)

  // "Try it": a curl for the TEST program, with the pasted key, which nothing keeps.
  await page.getByLabel('TEST program').selectOption(programId)
  await page.getByLabel('TEST key to try').fill(secret)
  const command = await page.getByRole('figure', { name: 'Command' }).innerText()
  // The grant API's own address (config.json's grantApiUrl), not the console's: in AWS the
  // console's CloudFront sends only /manage/* to the API.
  expect(command).toContain(`${server.baseUrl}/programs/${programId}/grant-tokens`)
  expect(command).toContain(`x-api-key: ${secret}`)
  await checkPage(page, 'keys')
  const stored = await page.evaluate(() =>
    JSON.stringify({ ...localStorage, ...sessionStorage, cookie: document.cookie }),
  )
  expect(stored).not.toContain(secret)

  // A grant with that key, over HTTP, as an integrator makes it.
  const granted = await grantWithKey(programId, secret, {
    recipient: { email: 'ann@example.com', name: 'Ann' },
    reason: 'Referral bonus',
    amount: 7,
  })
  expect(granted.status).toBe(201)
  const grant = (await granted.json()) as { id: string }

  // It shows in the program's grants, with its key.
  await page.getByRole('link', { name: 'Programs' }).click()
  await page.getByRole('link', { name: 'Referrals' }).click()
  await visible(page.getByRole('heading', { name: 'Referrals' }))
  const apiRow = await visible(page.getByRole('row', { name: new RegExp(grant.id) }))
  expect(await apiRow.innerText()).toMatch(
    /ann@example\.com[\s\S]*7[\s\S]*Referral bonus[\s\S]*API key key_/,
  )
  expect(
    await page
      .getByRole('meter', { name: 'Pool used by Referrals' })
      .getAttribute('aria-valuetext'),
  ).toBe('7 of 1,000 issued')

  // The recipient filter, and the CSV export of what is listed.
  await page.getByLabel('Recipient e-mail filter').fill('nobody@example.com')
  await page.getByRole('button', { name: 'Filter' }).click()
  await visible(page.getByText('No grants to nobody@example.com on this page.'))
  await page.getByRole('button', { name: 'Clear filter' }).click()
  await visible(page.getByRole('row', { name: new RegExp(grant.id) }))
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ])
  expect(download.suggestedFilename()).toBe(`grants-${programId}.csv`)
  const csv = await downloadedText(download)
  expect(csv.split('\r\n')[0]).toBe(
    '"id","created_at","recipient_email","recipient_name","amount","reason","mode","status","source","sent_by","key_id","batch_id","batch_row","idempotency_key"',
  )
  expect(csv).toContain(`"${grant.id}",`)
  await visible(page.getByRole('status').filter({ hasText: 'Exported 1 grant as CSV.' }))

  // Send one: the rules inline, a wrong amount refused next to its field, a preview, then sent.
  await visible(page.getByText('A whole number of shares from 1 to 1,000,000.'))
  await page.getByLabel('Recipient e-mail', { exact: true }).fill('bea@example.com')
  await page.getByLabel('Reason', { exact: true }).fill('Welcome gift')
  await page.getByLabel('Amount', { exact: true }).fill('0')
  await page.getByRole('button', { name: 'Preview grant' }).click()
  await visible(page.getByText('A whole number from 1 to 1,000,000.'))
  expect(await page.getByLabel('Amount', { exact: true }).getAttribute('aria-invalid')).toBe('true')
  await page.getByLabel('Amount', { exact: true }).fill('3')
  await page.getByRole('button', { name: 'Preview grant' }).click()
  const preview = await visible(page.getByRole('region', { name: 'Grant preview' }))
  expect(await preview.innerText()).toContain(
    'Grant 3 shares of Referrals (TEST) to bea@example.com, for “Welcome gift”.',
  )
  await checkPage(page, 'send-one-preview')
  await page.getByRole('button', { name: 'Send grant' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Granted 3 shares to bea@example.com' }))
  await visible(page.getByRole('row', { name: /bea@example\.com.*Sent by/ }))
  await checkPage(page, 'program')

  // Send to many: one bad row and one duplicate, seen in the check before anything is sent.
  await page.getByRole('link', { name: 'Send to many from a CSV file' }).click()
  await visible(page.getByRole('heading', { name: 'Send to many' }))
  await page.getByLabel('CSV file').setInputFiles({
    name: 'launch.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      [
        'email,name,amount,reason',
        'carl@example.com,Carl,5,Launch bonus',
        'dora@example.com,,4,Launch bonus',
        'not-an-address,,2,Launch bonus',
        'carl@example.com,Carl,5,Launch bonus',
      ].join('\n'),
    ),
  })
  await page.getByRole('button', { name: 'Check the CSV' }).click()
  const problemsTable = await visible(
    page.getByRole('table', { name: 'Rows that will not be sent' }),
  )
  expect(await problemsTable.getByRole('row', { name: /^Row 4/ }).innerText()).toMatch(
    /Invalid[\s\S]*email/,
  )
  expect(await problemsTable.getByRole('row', { name: /^Row 5/ }).innerText()).toContain(
    'Duplicate of row 2',
  )
  await visible(page.getByText('9 shares of the 990 left in the pool: enough.'))
  await checkPage(page, 'send-many-preview')
  await page.getByRole('button', { name: 'Send 2 grants' }).click()

  // The batch's own page: live progress, then each row's result.
  await visible(page.getByRole('heading', { name: /^Batch / }))
  const batchUrl = new URL(page.url()).pathname
  await visible(page.getByText('Done: 4 of 4 rows done, 2 granted, 2 failed, 0 pending.'))
  const rows = page.getByRole('table', { name: 'Rows of the batch, in CSV order' })
  expect(await rows.getByRole('row', { name: /^Row 2/ }).innerText()).toMatch(/granted[\s\S]*gr_/)
  expect(await rows.getByRole('row', { name: /^Row 4/ }).innerText()).toContain('validation_failed')
  expect(await rows.getByRole('row', { name: /^Row 5/ }).innerText()).toContain('duplicate_row')
  await checkPage(page, 'batch')

  // Leaving and coming back shows the batch, from the program's page.
  await page.getByRole('link', { name: 'Programs' }).first().click()
  await page.getByRole('link', { name: 'Referrals' }).click()
  await page
    .getByRole('link', { name: /^Batch bat_/ })
    .first()
    .click()
  await visible(page.getByText('Done: 4 of 4 rows done, 2 granted, 2 failed, 0 pending.'))
  expect(new URL(page.url()).pathname).toBe(batchUrl)

  // Sign out, then in again with the password chosen at the invitation: back on the same page.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await visible(page.getByRole('heading', { name: 'Sign in' }))
  await visible(page.getByRole('status').filter({ hasText: 'You are signed out.' }))
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
  await page.goto(batchUrl)
  await page.getByLabel('E-mail address').fill(owner)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await visible(page.getByText('Done: 4 of 4 rows done, 2 granted, 2 failed, 0 pending.'))

  // A reload keeps the session (the refresh token in sessionStorage) and the page.
  await page.reload()
  await visible(page.getByText('Done: 4 of 4 rows done, 2 granted, 2 failed, 0 pending.'))

  // The team: the last-owner rule, then a viewer invited.
  await page.getByRole('link', { name: 'Team' }).click()
  await visible(page.getByRole('heading', { name: 'Team' }))
  await visible(page.getByText('is the only owner. An issuer always keeps at least one owner'))
  await page.getByLabel('E-mail address').fill(viewer)
  await page.getByLabel('Role', { exact: true }).selectOption('viewer')
  await page.getByRole('button', { name: 'Send invitation' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: `Invitation sent to ${viewer} as viewer.` }),
  )
  await visible(page.getByRole('row', { name: new RegExp(`${viewer}.*Invitation pending`) }))
  await checkPage(page, 'team')

  // The viewer accepts in a browser of their own and sees no button they could not use.
  const viewerMail = await mailTo(server, viewer)
  const viewerContext = await newContext(browser, server.baseUrl)
  const viewerPage = await viewerContext.newPage()
  const viewerProblems = watchConsole(viewerPage)
  await viewerPage.goto('/app/accept')
  await acceptInvitation(
    viewerPage,
    viewer,
    temporaryPasswordIn(viewerMail),
    'accept-invitation-viewer',
  )
  await visible(viewerPage.getByText(`${viewer} · viewer`))
  await visible(viewerPage.getByRole('link', { name: 'Referrals' }))
  expect(await viewerPage.getByRole('button', { name: 'Create program' }).count()).toBe(0)
  expect(await viewerPage.getByRole('button', { name: /^(Pause|Close|Resume) / }).count()).toBe(0)
  await checkPage(viewerPage, 'viewer-programs')
  await viewerPage.getByRole('link', { name: 'Referrals' }).click()
  await visible(viewerPage.getByRole('row', { name: new RegExp(grant.id) }))
  expect(await viewerPage.getByRole('button', { name: 'Preview grant' }).count()).toBe(0)
  expect(await viewerPage.getByRole('link', { name: 'Send to many from a CSV file' }).count()).toBe(
    0,
  )
  await checkPage(viewerPage, 'viewer-program')
  await viewerPage.getByRole('link', { name: 'API keys' }).click()
  await visible(viewerPage.getByRole('row', { name: new RegExp(masked) }))
  expect(
    await viewerPage.getByRole('button', { name: /Create TEST key|^Revoke key|^Roll key/ }).count(),
  ).toBe(0)
  await checkPage(viewerPage, 'viewer-keys')
  await viewerPage.getByRole('link', { name: 'Team' }).click()
  await visible(viewerPage.getByRole('row', { name: new RegExp(owner) }))
  expect(await viewerPage.getByRole('button', { name: 'Send invitation' }).count()).toBe(0)
  expect(
    await viewerPage.getByRole('button', { name: /^(Remove|Withdraw|Resend invitation) / }).count(),
  ).toBe(0)
  expect(await viewerPage.getByRole('combobox', { name: /^Role of / }).count()).toBe(0)
  await checkPage(viewerPage, 'viewer-team')

  // The owner revokes the key, after a confirmation that says when it takes effect.
  await page.getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('button', { name: `Revoke key ${masked}` }).click()
  const dialog = await visible(page.getByRole('dialog', { name: `Revoke key ${masked}?` }))
  expect(await dialog.innerText()).toContain('within 1 second')
  await checkPage(page, 'revoke-dialog')
  await dialog.getByRole('button', { name: 'Revoke key' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'stops working within 1 second' }))
  await visible(page.getByRole('row', { name: new RegExp(`${masked}.*revoked`) }))
  // The bound the docs state: a revocation takes effect within 1 second. A real wait: the grant
  // is answered by `npm start`, another process, whose access cache ages on its own clock
  // (freezeCheckClock moves this process's only). The bound itself is proven with the injected
  // clock in test/http/grant-tokens.http.test.ts; here, end to end in real time.
  await sleep(1_100)
  const refused = await grantWithKey(programId, secret, {
    recipient: { email: 'ann@example.com' },
    reason: 'After the revocation',
    amount: 1,
  })
  expect(refused.status).toBe(401)
  expect(((await refused.json()) as { code: string }).code).toBe('invalid_api_key')

  // The audit log: each step, newest first, with the owner's e-mail.
  await page.getByRole('link', { name: 'Audit log' }).click()
  const audit = await visible(page.getByRole('table', { name: 'Audit log, newest first' }))
  await visible(audit.getByRole('row', { name: /key\.revoke/ }))
  const lines = (await audit.getByRole('row').allInnerTexts()).slice(1)
  const actions = lines.map(
    (line) => /\b((?:issuer|program|key|member|grant|batch)\.[a-z]+)\b/.exec(line)?.[1],
  )
  expect(actions[0]).toBe('key.revoke')
  for (const action of [
    'key.revoke',
    'member.invite',
    'batch.commit',
    'grant.send',
    'key.create',
    'program.create',
  ]) {
    const line = lines.find((l) => l.includes(action))
    expect({ action, line }).toEqual({ action, line: expect.stringContaining(owner) })
  }
  // Newest first: the key was revoked after the viewer's invitation, which came after the batch...
  const order = [
    'key.revoke',
    'member.invite',
    'batch.commit',
    'grant.send',
    'key.create',
    'program.create',
  ]
  const positions = order.map((a) => actions.indexOf(a))
  expect(positions).toEqual([...positions].sort((a, b) => a - b))
  // ... and the operator's issuer and invitation of the owner are the oldest entries.
  expect(lines.slice(-2)).toEqual([
    expect.stringMatching(/operator CLI[\s\S]*member\.invite[\s\S]*role: owner/),
    expect.stringMatching(/operator CLI[\s\S]*issuer\.create/),
  ])
  await checkPage(page, 'audit')

  // The programs page for the README: a second program, with no pool, paused.
  await page.getByRole('link', { name: 'Programs' }).click()
  await visible(page.getByRole('meter', { name: 'Pool used by Referrals' }))
  await page.getByLabel('Name', { exact: true }).fill('Employee awards')
  await page.getByRole('button', { name: 'Create program' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: 'Employee awards created (TEST, no pool limit)' }),
  )
  await page.getByRole('button', { name: 'Pause Employee awards' }).click()
  await visible(
    page
      .getByRole('status')
      .filter({ hasText: 'new grants are refused within 1 second, until you resume it' }),
  )
  await visible(page.getByRole('row', { name: /Employee awards.*paused.*no pool limit/ }))
  await checkPage(page, 'programs', 'console-programs.png')

  // No page broke its Content-Security-Policy or threw.
  const serious = (list: string[]) =>
    list.filter(
      (p) => !/Failed to load resource: the server responded with a status of (400|401)/.test(p),
    )
  expect(serious(problems)).toEqual([])
  expect(serious(viewerProblems)).toEqual([])
  await ownerContext.close()
  await viewerContext.close()
})
