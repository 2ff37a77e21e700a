import { rmSync } from 'node:fs'
import { SYNTH_CACHE_ENV } from './synth-cache'

type Running = { stop(): Promise<void> }

export default async function globalTeardown() {
  const running = globalThis as { __dynamo?: Running; __cognito?: Running; __browsers?: Running }
  await Promise.all([
    running.__dynamo?.stop(),
    running.__cognito?.stop(),
    running.__browsers?.stop(),
  ])
  // The run's templates and cloud assemblies (the bundles among them).
  const synthCache = process.env[SYNTH_CACHE_ENV]
  if (synthCache) rmSync(synthCache, { recursive: true, force: true })
}
