import type { ConsoleConfig } from '../../lib/console-site'

/**
 * Runtime configuration, read from `config.json` next to `index.html`, so one build serves every
 * stage: `npm start` writes it for the local API and emulator, the stack at deploy time. Its shape
 * is the one both writers use (lib/console-site.ts: plain data, a type-only import here).
 */

let loaded: ConsoleConfig | undefined

const text = (value: unknown, name: string) => {
  if (typeof value !== 'string' || value === '') throw new Error(`config.json has no ${name}`)
  return value
}

export const loadConfig = async (): Promise<ConsoleConfig> => {
  const response = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' })
  if (!response.ok) throw new Error(`config.json answered ${response.status}`)
  const raw = (await response.json()) as Record<string, unknown>
  loaded = {
    grantApiUrl: text(raw.grantApiUrl, 'grantApiUrl'),
    region: typeof raw.region === 'string' ? raw.region : '',
    userPoolId: text(raw.userPoolId, 'userPoolId'),
    userPoolClientId: text(raw.userPoolClientId, 'userPoolClientId'),
    cognitoEndpoint: text(raw.cognitoEndpoint, 'cognitoEndpoint'),
  }
  return loaded
}

export const config = (): ConsoleConfig => {
  if (!loaded) throw new Error('config.json is not loaded yet')
  return loaded
}
