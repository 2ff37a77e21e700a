import type { CustomMessageTriggerEvent } from 'aws-lambda'
import {
  loadCustomMessageConfig,
  makeCustomMessageHandler,
} from '../../functions/identity/custom-message'
import {
  CONSOLE_URL_PLACEHOLDER,
  IDENTITY_ENV,
  PASSWORD_POLICY,
} from '../../functions/identity/identity-settings'
import {
  escapeHtml,
  fitSubject,
  invitationMetadata,
  issuerNamesOf,
  MAX_LISTED_ISSUERS,
  oneLine,
  renderAddedMessage,
  renderMessage,
  SUBJECT_MAX,
} from '../../functions/identity/invitation-message'

const CONSOLE = 'https://console.example.com/shares?tab=1&view=all'

/**
 * What Cognito checks a custom e-mail body against (the service's validation error quotes it):
 * nothing but letters, marks, symbols, numbers, punctuation and white space around `{####}`.
 */
const COGNITO_BODY = /^[\p{L}\p{M}\p{S}\p{N}\p{P}\s*]*\{####\}[\p{L}\p{M}\p{S}\p{N}\p{P}\s*]*$/u

const invite = (extra: Partial<Parameters<typeof renderMessage>[0]> = {}) => {
  const message = renderMessage({
    triggerSource: 'CustomMessage_AdminCreateUser',
    consoleUrl: CONSOLE,
    usernameParameter: '{username}',
    codeParameter: '{####}',
    email: 'ann@example.com',
    ...extra,
  })
  if (!message) throw new Error('no invitation rendered')
  return message
}

/** The text of an HTML part as a reader sees it, near enough: tags gone, entities decoded. */
const visible = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')

describe('the invitation (CustomMessage_AdminCreateUser)', () => {
  it('carries both placeholders Cognito requires, in the HTML and the text part', () => {
    const { subject, text, html } = invite()
    for (const part of [text, html]) {
      expect(part).toContain('{username}')
      expect(part).toContain('{####}')
    }
    expect(subject).toBe('You are invited to the Virtual Shares console')
    expect(text).toContain(`${PASSWORD_POLICY.temporaryPasswordValidityDays} days`)
  })

  it('uses the placeholders Cognito sends, not hard-coded ones', () => {
    const { text, html } = invite({ usernameParameter: '{user}', codeParameter: '{code}' })
    for (const part of [text, html]) {
      expect(part).toContain('{user}')
      expect(part).toContain('{code}')
      expect(part).not.toContain('{username}')
    }
  })

  it("links to the console's address, escaped inside the href and the link text", () => {
    const { text, html } = invite()
    expect(text).toContain(CONSOLE)
    expect(html).toContain(
      `<a href="https://console.example.com/shares?tab=1&amp;view=all">https://console.example.com/shares?tab=1&amp;view=all</a>`,
    )
    expect(visible(html)).toContain(CONSOLE)
  })

  it('keeps the temporary password away from punctuation, on its own in <code>', () => {
    const { text, html } = invite()
    expect(html).toContain('<code style="font-size:1.1em">{####}</code>')
    expect(text).toMatch(/Temporary password: \{####\}\n/)
  })

  it('escapes what people typed (issuer name, address) in the HTML part', () => {
    const { subject, text, html } = invite({
      issuerName: `<script>alert("x")</script> Tom & Jerry's`,
      email: `o'brien+<b>@example.com`,
    })
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b>@')
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Tom &amp; Jerry&#39;s',
    )
    expect(html).toContain('o&#39;brien+&lt;b&gt;@example.com')
    // The text part and the subject are plain text: the same words, unescaped.
    expect(text).toContain(`<script>alert("x")</script> Tom & Jerry's`)
    expect(subject).toBe(
      `You are invited to manage <script>alert("x")</script> Tom & Jerry's on Virtual Shares`,
    )
    expect(visible(html)).toContain(`manage <script>alert("x")</script> Tom & Jerry's in the`)
    // Only the markup the renderer wrote is left.
    const tags = [...html.matchAll(/<\/?([a-z!]+)/gi)].map((m) => m[1]?.toLowerCase())
    expect(new Set(tags)).toEqual(
      new Set(['!doctype', 'html', 'head', 'meta', 'title', 'body', 'p', 'br', 'a', 'code']),
    )
  })

  it('drops line breaks, control and invisible characters from an issuer name, and caps it', () => {
    const { subject, html } = invite({ issuerName: 'Acme\r\nBcc: x@evil.test\u0000\u200b Ltd' })
    expect(subject).toBe('You are invited to manage Acme Bcc: x@evil.test Ltd on Virtual Shares')
    for (const gone of ['\u0000', '\u200b', '\r']) expect(html.includes(gone)).toBe(false)
    expect([...oneLine('x'.repeat(500))]).toHaveLength(100)
  })

  it('passes the check Cognito applies to a custom body, whatever was typed', () => {
    for (const issuerName of [
      undefined,
      'Émile & Søn 株式会社 👩‍💼',
      'tab\there\u2028line\u00adsoft',
    ]) {
      const { text, html } = invite({ issuerName })
      expect(html).toMatch(COGNITO_BODY)
      expect(text).toMatch(COGNITO_BODY)
      expect(html.length).toBeLessThanOrEqual(20_000)
    }
  })

  it('leaves no markup in the text part', () => {
    expect(invite().text).not.toMatch(/<[a-z/!]/i)
  })

  it('keeps the subject within Cognito’s 140 characters, however long the issuer name (cut with …)', () => {
    const long = 'Ω'.repeat(100)
    const { subject } = invite({ issuerName: long })
    expect(subject.length).toBe(SUBJECT_MAX)
    expect(subject).toMatch(/^You are invited to manage Ω+… on Virtual Shares$/)
    // UTF-16 units count: an emoji is two, and is never cut in half.
    const emoji = invite({ issuerName: '👩‍💼'.repeat(40) }).subject
    expect(emoji.length).toBeLessThanOrEqual(SUBJECT_MAX)
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
    // Several issuers, each with a 100-character name: still within the limit.
    const many = invite({ issuerNames: ['A'.repeat(100), 'B'.repeat(100), 'C'] }).subject
    expect(many.length).toBeLessThanOrEqual(SUBJECT_MAX)
    expect(many).toMatch(/ and 2 other issuers on Virtual Shares$/)
    expect(fitSubject('ab', 'cdef', 'gh', 7)).toBe('abcd…gh')
    expect(fitSubject('ab', 'cd', 'gh', 7)).toBe('abcdgh')
  })

  it('names every issuer with a pending invitation, the inviting one first, in the subject and the body', () => {
    const { subject, text, html } = invite({ issuerNames: ['Beta & Co', 'Alpha', 'Beta & Co'] })
    expect(subject).toBe('You are invited to manage Beta & Co and 1 other issuer on Virtual Shares')
    expect(text).toContain(
      'you have been invited to manage these issuers in the Virtual Shares console:\n- Beta & Co\n- Alpha\n',
    )
    expect(text).toContain('its temporary password opens all of them')
    expect(html).toContain('- Beta &amp; Co<br>\n- Alpha')
    expect(html).toMatch(COGNITO_BODY)
    // Many: the first MAX_LISTED_ISSUERS by name, the rest counted.
    const names = Array.from({ length: MAX_LISTED_ISSUERS + 3 }, (_, i) => `Issuer ${i}`)
    const many = invite({ issuerNames: names })
    expect(many.text).toContain(`- Issuer ${MAX_LISTED_ISSUERS - 1}\n- and 3 more`)
    expect(many.text).not.toContain(`- Issuer ${MAX_LISTED_ISSUERS}\n`)
  })

  it('reads the issuer names an inviter put in ClientMetadata, and nothing else', () => {
    expect(issuerNamesOf(invitationMetadata(['B', 'A']))).toEqual(['B', 'A'])
    expect(issuerNamesOf({ issuerName: 'Solo' })).toEqual(['Solo'])
    expect(issuerNamesOf({ issuerName: 'Solo', issuerNames: 'not json' })).toEqual(['Solo'])
    expect(issuerNamesOf({ issuerNames: '[1, "", "X", {"a": 1}]' })).toEqual(['X'])
    expect(issuerNamesOf({ issuerNames: '{"a":"b"}' })).toBeUndefined()
    expect(issuerNamesOf(undefined)).toBeUndefined()
    expect(issuerNamesOf(null)).toBeUndefined()
  })
})

describe('the e-mail to an existing account added to another issuer', () => {
  it('says who added them, to which issuer, with which role, and where to sign in; no password', () => {
    const { subject, text, html } = renderAddedMessage({
      consoleUrl: CONSOLE,
      email: 'bob@example.com',
      issuerName: 'Acme <Shares>',
      role: 'admin',
      addedBy: 'owner@example.com',
    })
    expect(subject).toBe('You have been added to Acme <Shares> on Virtual Shares')
    expect(text).toContain('owner@example.com added you to Acme <Shares> as admin')
    expect(text).toContain(`bob@example.com, and your own password at\n${CONSOLE}`)
    expect(text).not.toMatch(/\{####\}|temporary/i)
    expect(html).toContain('Acme &lt;Shares&gt;')
    expect(html).not.toContain('<Shares>')
    const long = renderAddedMessage({
      consoleUrl: CONSOLE,
      email: 'bob@example.com',
      issuerName: 'x'.repeat(300),
      role: 'viewer',
      addedBy: 'operator CLI',
    })
    expect(long.subject.length).toBeLessThanOrEqual(SUBJECT_MAX)
  })
})

describe('the password reset (CustomMessage_ForgotPassword)', () => {
  const reset = renderMessage({
    triggerSource: 'CustomMessage_ForgotPassword',
    consoleUrl: CONSOLE,
    usernameParameter: null,
    codeParameter: '{####}',
    email: 'ann@example.com',
  })

  it('carries the code and the console address', () => {
    expect(reset?.subject).toBe('Your Virtual Shares password reset code')
    expect(reset?.text).toContain('Your code: {####}')
    expect(reset?.html).toContain('<code style="font-size:1.1em">{####}</code>')
    expect(reset?.html).toMatch(COGNITO_BODY)
    expect(reset?.text).toContain(CONSOLE)
    expect(reset?.text).toContain('ann@example.com')
  })
})

describe('other trigger sources', () => {
  it.each([
    'CustomMessage_SignUp',
    'CustomMessage_ResendCode',
    'CustomMessage_UpdateUserAttribute',
    'CustomMessage_VerifyUserAttribute',
    'CustomMessage_Authentication',
    'PreSignUp_AdminCreateUser',
    '',
  ])('%p: nothing rendered, Cognito sends its own text', (triggerSource) => {
    expect(
      renderMessage({
        triggerSource,
        consoleUrl: CONSOLE,
        usernameParameter: '{username}',
        codeParameter: '{####}',
      }),
    ).toBeUndefined()
  })
})

describe('escapeHtml', () => {
  it('escapes the five markup characters and nothing else', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a> é {####}`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt; é {####}',
    )
  })
})

/**
 * A CustomMessage_AdminCreateUser event as Cognito sends it: the common trigger parameters and the
 * custom message request/response of the Cognito Developer Guide ("Custom message Lambda trigger",
 * "Connecting API actions to Lambda triggers"), the shape of @types/aws-lambda's
 * CustomMessageTriggerEvent, and the values seen in recorded events (Powertools for AWS Lambda's
 * parser test events: `clientId` is CLIENT_ID_NOT_APPLICABLE and `awsSdkVersion`
 * aws-sdk-unknown-unknown for admin API calls; with e-mail as the user name, `userName` is the
 * user's generated sub, and the response fields arrive null).
 */
const adminCreateUserEvent = (): CustomMessageTriggerEvent => ({
  version: '1',
  triggerSource: 'CustomMessage_AdminCreateUser',
  region: 'eu-west-1',
  userPoolId: 'eu-west-1_AbCdEfGhI',
  userName: '7c1a4e52-90b1-70c8-3f4d-1a2b3c4d5e6f',
  callerContext: {
    awsSdkVersion: 'aws-sdk-unknown-unknown',
    clientId: 'CLIENT_ID_NOT_APPLICABLE',
  },
  request: {
    userAttributes: {
      sub: '7c1a4e52-90b1-70c8-3f4d-1a2b3c4d5e6f',
      email_verified: 'true',
      'cognito:user_status': 'FORCE_CHANGE_PASSWORD',
      email: 'ann@example.com',
    },
    codeParameter: '{####}',
    linkParameter: '{##Click Here##}',
    usernameParameter: '{username}',
    clientMetadata: { issuerName: 'Acme & Co' },
  },
  response: { smsMessage: null, emailMessage: null, emailSubject: null },
})

describe('the CustomMessage trigger handler', () => {
  /** The handler as its entry module builds it at cold start, from an environment with this address. */
  const loadHandler = async (consoleUrl: string | undefined) =>
    makeCustomMessageHandler(
      loadCustomMessageConfig(
        consoleUrl === undefined ? {} : { [IDENTITY_ENV.consoleUrl]: consoleUrl },
      ),
    )

  it('answers an AdminCreateUser event with the invitation, and changes nothing else', async () => {
    const handler = await loadHandler('https://console.example.com/')
    const event = adminCreateUserEvent()
    const result = await handler(structuredClone(event))
    const expected = invite({
      consoleUrl: 'https://console.example.com/',
      issuerName: 'Acme & Co',
    })
    // The default deploy: Cognito's own sender, so no subject (Cognito's own goes out).
    expect(result).toEqual({
      ...event,
      response: { smsMessage: null, emailSubject: null, emailMessage: expected.html },
    })
    expect(result.response.emailMessage).toContain('{username}')
    expect(result.response.emailMessage).toContain('{####}')
    expect(result.response.emailMessage).toContain('href="https://console.example.com/"')
    expect(result.response.emailMessage).toContain('Acme &amp; Co')
  })

  it('returns the subject only when the pool sends through SES (EmailSendingAccount DEVELOPER)', async () => {
    const event = adminCreateUserEvent()
    const withSes = makeCustomMessageHandler(
      loadCustomMessageConfig({
        [IDENTITY_ENV.consoleUrl]: 'https://console.example.com/',
        [IDENTITY_ENV.emailSending]: 'DEVELOPER',
      }),
    )
    const viaSes = await withSes(structuredClone(event))
    expect(viaSes.response.emailSubject).toBe(
      'You are invited to manage Acme & Co on Virtual Shares',
    )
    expect(viaSes.response.emailMessage).toContain('Acme &amp; Co')
    const withCognito = makeCustomMessageHandler(
      loadCustomMessageConfig({
        [IDENTITY_ENV.consoleUrl]: 'https://console.example.com/',
        [IDENTITY_ENV.emailSending]: 'COGNITO_DEFAULT',
      }),
    )
    const viaCognito = await withCognito(structuredClone(event))
    expect(viaCognito.response.emailSubject).toBeNull()
    expect(viaCognito.response.emailMessage).toBe(viaSes.response.emailMessage)
    // A long name: the subject still fits Cognito's limit.
    const long = structuredClone(event)
    long.request.clientMetadata = invitationMetadata(['N'.repeat(100), 'Other'])
    expect((await withSes(long)).response.emailSubject?.length).toBeLessThanOrEqual(SUBJECT_MAX)
    // Anything but the two names stops the function at init.
    expect(() =>
      loadCustomMessageConfig({
        [IDENTITY_ENV.consoleUrl]: 'https://console.example.com/',
        [IDENTITY_ENV.emailSending]: 'SES',
      }),
    ).toThrow(/POOL_EMAIL_SENDING must be COGNITO_DEFAULT or DEVELOPER/)
  })

  it('names every issuer the inviter listed in ClientMetadata', async () => {
    const handler = makeCustomMessageHandler({
      consoleUrl: 'https://console.example.com/',
      emailSending: 'DEVELOPER',
    })
    const event = adminCreateUserEvent()
    event.request.clientMetadata = invitationMetadata(['Beta', 'Alpha & Co'])
    const result = await handler(event)
    expect(result.response.emailSubject).toBe(
      'You are invited to manage Beta and 1 other issuer on Virtual Shares',
    )
    expect(result.response.emailMessage).toContain('- Beta<br>\n- Alpha &amp; Co')
  })

  it('answers ForgotPassword with the code, and passes other sources through untouched', async () => {
    const handler = await loadHandler('https://console.example.com/')
    const base = adminCreateUserEvent()
    const forgot: CustomMessageTriggerEvent = {
      ...base,
      triggerSource: 'CustomMessage_ForgotPassword',
      callerContext: { awsSdkVersion: 'aws-sdk-js-3.600.0', clientId: '1example23456789' },
      request: { ...base.request, usernameParameter: null, clientMetadata: undefined },
    }
    const reset = await handler(structuredClone(forgot))
    expect(reset.response.emailMessage).toContain('{####}')
    expect(reset.response.emailSubject).toBeNull()

    const verify: CustomMessageTriggerEvent = {
      ...forgot,
      triggerSource: 'CustomMessage_VerifyUserAttribute',
    }
    expect(await handler(structuredClone(verify))).toEqual(verify)
  })

  it('stops at cold start without a usable console address', async () => {
    await expect(loadHandler(undefined)).rejects.toThrow(/consoleUrl must be an absolute URL/)
    await expect(loadHandler('http://console.example.com/')).rejects.toThrow(/https/)
    // The placeholder works (the stage just has not set its address yet).
    await expect(loadHandler(CONSOLE_URL_PLACEHOLDER)).resolves.toBeInstanceOf(Function)
  })
})
