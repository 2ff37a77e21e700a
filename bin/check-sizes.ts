/**
 * `npm run check:sizes` (in .ci/run): no source file over 500 lines, no function over 150
 * (checks/source-sizes.ts), except what checks/source-sizes.config.ts allows until it is split.
 * `--all` prints every file and function over the limits, allowed or not.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkSizes, describeFinding, measureSource } from '../checks/source-sizes'
import { ALLOWED, isChecked, LIMITS, SOURCE_ROOTS } from '../checks/source-sizes.config'

const root = fileURLToPath(new URL('..', import.meta.url))

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return []
    const path = join(dir, entry.name)
    return entry.isDirectory() ? walk(path) : [path]
  })

const paths = SOURCE_ROOTS.flatMap((dir) => walk(join(root, dir)))
  .map((path) => relative(root, path).split('\\').join('/'))
  .filter(isChecked)
  .sort()
const sources = paths.map((path) => measureSource(path, readFileSync(join(root, path), 'utf8')))

if (process.argv.includes('--all')) {
  for (const source of sources) {
    if (source.lines > LIMITS.fileLines) console.log(`${source.lines}\t${source.path}`)
    for (const fn of source.functions) {
      if (fn.lines > LIMITS.functionLines) console.log(`${fn.lines}\t${source.path} ${fn.name}`)
    }
  }
}
const findings = checkSizes(sources, LIMITS, ALLOWED)
for (const finding of findings) console.error(describeFinding(finding))
const allowances = Object.keys(ALLOWED.files).length + Object.keys(ALLOWED.functions).length
console.log(
  `${sources.length} files: ${findings.length === 0 ? 'none' : findings.length} over ${LIMITS.fileLines} lines a file or ${LIMITS.functionLines} a function beyond the ${allowances} allowed in checks/source-sizes.config.ts`,
)
process.exitCode = findings.length === 0 ? 0 : 1
