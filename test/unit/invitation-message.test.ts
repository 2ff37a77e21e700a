import type { CustomMessageTriggerEvent } from 'aws-lambda'
import {
  CONSOLE_URL_PLACEHOLDER,
  IDENTITY_ENV,
  PASSWORD_POLICY,
} from '../../functions/identity/identity-settings'
import { escapeHtml, oneLine, renderMessage } from '../../functions/identity/invitation-message'

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
  const loadHandler = async (consoleUrl: string | undefined) => {
    const saved = process.env[IDENTITY_ENV.consoleUrl]
    if (consoleUrl === undefined) delete process.env[IDENTITY_ENV.consoleUrl]
    else process.env[IDENTITY_ENV.consoleUrl] = consoleUrl
    try {
      let loaded: typeof import('../../functions/identity/custom-message.handler') | undefined
      await jest.isolateModulesAsync(async () => {
        loaded = await import('../../functions/identity/custom-message.handler')
      })
      return (loaded as NonNullable<typeof loaded>).handler
    } finally {
      if (saved === undefined) delete process.env[IDENTITY_ENV.consoleUrl]
      else process.env[IDENTITY_ENV.consoleUrl] = saved
    }
  }

  it('answers an AdminCreateUser event with the invitation, and changes nothing else', async () => {
    const handler = await loadHandler('https://console.example.com/')
    const event = adminCreateUserEvent()
    const result = await handler(structuredClone(event))
    const expected = invite({
      consoleUrl: 'https://console.example.com/',
      issuerName: 'Acme & Co',
    })
    expect(result).toEqual({
      ...event,
      response: {
        smsMessage: null,
        emailSubject: expected.subject,
        emailMessage: expected.html,
      },
    })
    expect(result.response.emailMessage).toContain('{username}')
    expect(result.response.emailMessage).toContain('{####}')
    expect(result.response.emailMessage).toContain('href="https://console.example.com/"')
    expect(result.response.emailMessage).toContain('Acme &amp; Co')
    expect(result.response.emailSubject).toBe(
      'You are invited to manage Acme & Co on Virtual Shares',
    )
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
    expect(reset.response.emailSubject).toBe('Your Virtual Shares password reset code')

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
