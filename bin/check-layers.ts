/**
 * `npm run check:layers` (in .ci/run): the import rules of .dependency-cruiser.cjs. A violation
 * listed in .dependency-cruiser-known-violations.json (there before its rule) is tolerated and any
 * other fails; so does a listed one that is gone, so the list is exactly what is left to fix.
 * `--update` rewrites the list once a violation is removed (never to let a new one in).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const KNOWN = '.dependency-cruiser-known-violations.json'
/** Every folder of TypeScript that Lambda, the stack, the local server or the CLI runs. */
const ROOTS = ['functions', 'lib', 'local', 'cli', 'bin', 'checks']

const run = (tool: string, args: string[], capture: boolean) => {
  const result = spawnSync(join(root, 'node_modules', '.bin', tool), args, {
    cwd: root,
    encoding: 'utf8',
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
  })
  if (result.error) throw result.error
  return result
}
const cruise = (args: string[], capture = false) =>
  run('depcruise', ['--config', '.dependency-cruiser.cjs', ...args, ...ROOTS], capture)

type Known = { from: string; to: string; rule: { name: string } }
const keyOf = (v: Known) => `${v.rule.name}: ${v.from} → ${v.to}`

if (process.argv.includes('--update')) {
  const written = cruise(['--output-type', 'baseline', '--output-to', KNOWN])
  if (written.status !== 0) process.exit(written.status ?? 1)
  // Biome checks the file too: write it as Biome would.
  process.exit(run('biome', ['format', '--write', KNOWN], false).status ?? 1)
}

const checked = cruise(['--ignore-known', KNOWN, '--output-type', 'err'])
if (checked.status !== 0) {
  console.error(
    `A new import breaks a rule of .dependency-cruiser.cjs (docs/architecture.md, "Layers the build checks"): import through the layer the rule names instead.`,
  )
  process.exit(checked.status ?? 1)
}
const now = cruise(['--output-type', 'baseline'], true)
if (now.status !== 0) process.exit(now.status ?? 1)
const present = new Set((JSON.parse(now.stdout) as Known[]).map(keyOf))
const known = JSON.parse(readFileSync(join(root, KNOWN), 'utf8')) as Known[]
const gone = known.map(keyOf).filter((key) => !present.has(key))
if (gone.length > 0) {
  for (const key of gone) console.error(`fixed, still listed: ${key}`)
  console.error(`Remove them from ${KNOWN}: npm run check:layers -- --update`)
  process.exit(1)
}
