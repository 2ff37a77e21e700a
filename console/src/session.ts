import {
  type AuthenticationResult,
  CognitoError,
  refreshTokens,
  revokeRefreshToken,
} from './cognito'

/**
 * The signed-in person's tokens. The access token lives in memory only (never in storage, so a
 * script of another tab or a leaked disk image has none); the refresh token lives in
 * `sessionStorage`, which lasts as long as the tab, so a reload keeps the session and closing the
 * tab ends it. Sign-out clears both and revokes the refresh token.
 */
const REFRESH_KEY = 'vs.console.refreshToken'
/** Refresh a little before the access token ends, so no request is sent with a dying one. */
const EARLY_MS = 60_000

let accessToken: string | undefined
let accessUntil = 0
let refreshing: Promise<string | undefined> | undefined
let ended: ((reason: string) => void) | undefined

const storage = () => {
  try {
    return window.sessionStorage
  } catch {
    return undefined
  }
}

/** Called when the session can no longer be refreshed (revoked, expired): back to sign-in. */
export const onSessionEnded = (listener: (reason: string) => void) => {
  ended = listener
}

export const startSession = (result: AuthenticationResult) => {
  accessToken = result.AccessToken
  accessUntil = Date.now() + (result.ExpiresIn || 3600) * 1000
  if (result.RefreshToken) storage()?.setItem(REFRESH_KEY, result.RefreshToken)
}

export const hasSession = () => accessToken !== undefined || !!storage()?.getItem(REFRESH_KEY)

const clear = () => {
  accessToken = undefined
  accessUntil = 0
  storage()?.removeItem(REFRESH_KEY)
}

const doRefresh = async (): Promise<string | undefined> => {
  const refreshToken = storage()?.getItem(REFRESH_KEY)
  if (!refreshToken) {
    if (accessToken !== undefined) {
      clear()
      ended?.('Your session has ended. Sign in again.')
    }
    return undefined
  }
  try {
    const result = await refreshTokens(refreshToken)
    startSession({ ...result, RefreshToken: result.RefreshToken ?? refreshToken })
    return accessToken
  } catch (error) {
    if (error instanceof CognitoError && error.type === 'NetworkError') throw error
    clear()
    ended?.('Your session has ended. Sign in again.')
    return undefined
  }
}

/** New tokens from the refresh token, once at a time however many requests ask. */
export const refreshNow = (): Promise<string | undefined> => {
  refreshing ??= doRefresh().finally(() => {
    refreshing = undefined
  })
  return refreshing
}

/** An access token valid for at least a minute more, refreshed when needed; none when signed out. */
export const currentAccessToken = async (): Promise<string | undefined> => {
  if (accessToken !== undefined && Date.now() < accessUntil - EARLY_MS) return accessToken
  return refreshNow()
}

export const signOut = async () => {
  const refreshToken = storage()?.getItem(REFRESH_KEY)
  clear()
  if (refreshToken) {
    try {
      await revokeRefreshToken(refreshToken)
    } catch {
      // The token is gone from this tab either way; Cognito ends it at its expiry.
    }
  }
}

/**
 * A call to Cognito's user API (the account page) with the access token. A token Cognito refuses
 * (expired, revoked) is refreshed once and the call sent again, as the management API's 401 is.
 */
export const withAccessToken = async <T>(use: (token: string) => Promise<T>): Promise<T> => {
  const token = await currentAccessToken()
  if (!token) throw new CognitoError('NotAuthorizedException', 'Your session has ended.')
  try {
    return await use(token)
  } catch (error) {
    const refused =
      error instanceof CognitoError &&
      error.type === 'NotAuthorizedException' &&
      /access token/i.test(error.message)
    if (!refused) throw error
    const fresh = await refreshNow()
    if (!fresh) throw error
    return use(fresh)
  }
}
