import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { idempotentGrantId } from '../functions/domain/ids'
import type { Seed } from './seed'

/**
 * The sample events in events/ are real API Gateway payload-2.0 events with placeholders where
 * a seeded id or key goes ({{TEST_API_KEY}}...): committed files never hold a working key.
 */
/** The Idempotency-Key of events/grant.json, so get-grant.json can name the grant it made. */
export const SAMPLE_IDEMPOTENCY_KEY = 'sam-local-sample-grant-1'

export const eventValues = (seed: Pick<Seed, 'issuerId' | 'programs' | 'keys'>) => ({
  TEST_PROGRAM_ID: seed.programs.TEST,
  TEST_API_KEY: seed.keys.TEST,
  IDEMPOTENCY_KEY: SAMPLE_IDEMPOTENCY_KEY,
  GRANT_ID: idempotentGrantId(seed.issuerId, 'TEST', SAMPLE_IDEMPOTENCY_KEY),
})

export const renderEvent = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (match, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`No value for placeholder ${match}`)
    return value
  })

/** Every sample event except env.json, rendered with the given values. */
export const sampleEvents = (dir: string, values: Record<string, string>) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.json') && file !== 'env.json')
    .sort()
    .map((file) => ({
      file,
      event: JSON.parse(
        renderEvent(readFileSync(join(dir, file), 'utf8'), values),
      ) as APIGatewayProxyEventV2,
    }))
