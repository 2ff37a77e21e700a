import type { ConsoleConfig } from '../../lib/console-site'

/**
 * Cognito's JSON API (the emulator under `npm start`) called as the console calls it: a POST to
 * the `cognitoEndpoint` of the server's `/app/config.json`, `X-Amz-Target` naming the operation,
 * the console's app client as `ClientId`. One place for the tests and the bench.
 */
export type CognitoServer = { baseUrl: string }

/** The fields of Cognito's answers that the tests read; each operation answers with some of them. */
export type CognitoData = {
  ChallengeName?: string
  Session?: string
  ChallengeParameters?: Partial<Record<string, string>>
  AuthenticationResult?: { AccessToken: string; RefreshToken?: string; IdToken?: string }
  SecretCode?: string
  Status?: string
  UserMFASettingList?: string[]
}

/** The answer, or the refusal: its exception's name (`NotAuthorizedException`) and message. */
export type CognitoResult =
  | { ok: true; data: CognitoData }
  | { ok: false; type: string; message: string }

// config.json read once per server object (a later server may reuse a port, never the object).
const configs = new WeakMap<CognitoServer, Promise<ConsoleConfig>>()

const configOf = (server: CognitoServer) => {
  let config = configs.get(server)
  if (!config) {
    config = fetch(`${server.baseUrl}/app/config.json`).then(async (response) => {
      if (!response.ok) throw new Error(`${server.baseUrl}/app/config.json: ${response.status}`)
      return (await response.json()) as ConsoleConfig
    })
    configs.set(server, config)
    // A failed read is not kept: the next call reads again.
    config.catch(() => configs.delete(server))
  }
  return config
}

export const cognitoCall = async (
  server: CognitoServer,
  target: string,
  body: Record<string, unknown>,
): Promise<CognitoResult> => {
  const config = await configOf(server)
  const response = await fetch(config.cognitoEndpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
    },
    body: JSON.stringify({ ClientId: config.userPoolClientId, ...body }),
  })
  const data = (await response.json()) as CognitoData & {
    __type?: string
    code?: string
    message?: string
  }
  return response.ok
    ? { ok: true, data }
    : {
        ok: false,
        type:
          String(data.__type ?? data.code)
            .split('#')
            .pop() ?? '',
        message: String(data.message),
      }
}

/** The answer of a call that must succeed; a refusal throws, with the operation named. */
export const cognitoOk = async (
  server: CognitoServer,
  target: string,
  body: Record<string, unknown>,
): Promise<CognitoData> => {
  const result = await cognitoCall(server, target, body)
  if (!result.ok) throw new Error(`Cognito ${target}: ${result.type}: ${result.message}`)
  return result.data
}

/**
 * An invited person's first sign-in straight against Cognito's API, as the console's accept page
 * does it: the temporary password, then NEW_PASSWORD_REQUIRED answered with `password`. Their
 * access token.
 */
export const acceptInvitation = async (
  server: CognitoServer,
  { email, temporary }: { email: string; temporary: string },
  password: string,
): Promise<string> => {
  const challenge = await cognitoOk(server, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: temporary },
  })
  if (challenge.ChallengeName !== 'NEW_PASSWORD_REQUIRED') {
    throw new Error(`expected NEW_PASSWORD_REQUIRED, got ${JSON.stringify(challenge)}`)
  }
  const answer = await cognitoOk(server, 'RespondToAuthChallenge', {
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    Session: challenge.Session,
    ChallengeResponses: { USERNAME: email, NEW_PASSWORD: password },
  })
  const token = answer.AuthenticationResult?.AccessToken
  if (!token) throw new Error(`no access token: ${JSON.stringify(answer)}`)
  return token
}
