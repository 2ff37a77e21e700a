/**
 * `npm run sam:events`: renders events/*.json with the ids and key of the local seed into
 * .local/events/, ready for `sam local invoke -e .local/events/grant.json`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { localPaths } from '../local/local-env'
import { eventValues, sampleEvents } from '../local/sam-events'
import type { Seed } from '../local/seed'

const paths = localPaths(process.env.VS_LOCAL_DIR)
if (!existsSync(paths.seedFile)) {
  console.error(
    `error: ${paths.seedFile} does not exist yet. Run npm start first; it seeds the local database.`,
  )
  process.exit(1)
}
const seed = JSON.parse(readFileSync(paths.seedFile, 'utf8')) as Seed
const out = join(paths.dir, 'events')
mkdirSync(out, { recursive: true })
for (const { file, event } of sampleEvents(
  fileURLToPath(new URL('../events', import.meta.url)),
  eventValues(seed),
)) {
  writeFileSync(join(out, file), `${JSON.stringify(event, null, 2)}\n`, { mode: 0o600 })
  console.log(join(out, file))
}
