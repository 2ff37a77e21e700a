import { join } from 'node:path'
import { build, type Metafile } from 'esbuild'
import { ROUTES } from '../../functions/routes'
import { esbuildOptions } from '../../lib/esbuild-options'
import { PROJECT_ROOT } from '../support/project-root'

/**
 * What the grant function evaluates at import (docs/performance.md, "import time"): its bundle,
 * built with the stack's esbuild options, reaches zod and the problem catalogue only through the
 * dynamic imports the grant path makes on its first request and its first error; the bundle stays
 * one file. A static import of either from anything on the grant path fails here.
 */
const grantEntry = ROUTES.find((r) => r.id === 'GrantTokens')?.entry as string

const staticallyReached = (metafile: Metafile, entry: string) => {
  const start = Object.keys(metafile.inputs).find((path) => path.endsWith(entry)) as string
  const seen = new Set([start])
  const queue = [start]
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    for (const i of metafile.inputs[path]?.imports ?? []) {
      if (i.kind === 'dynamic-import' || i.external || seen.has(i.path)) continue
      seen.add(i.path)
      queue.push(i.path)
    }
  }
  return seen
}

describe('the grant function at import', () => {
  let metafile: Metafile
  let outputs: string[]
  beforeAll(async () => {
    const result = await build({
      ...esbuildOptions(
        join(PROJECT_ROOT, grantEntry),
        join(PROJECT_ROOT, 'cdk.out/grant-import/index.mjs'),
      ),
      metafile: true,
      write: false,
    })
    metafile = result.metafile
    outputs = Object.keys(metafile.outputs).filter((path) => path.endsWith('.mjs'))
  })

  it('is one file, as the stack deploys it', () => {
    expect(outputs).toHaveLength(1)
  })

  it('carries zod and the problem catalogue, reached only through dynamic imports', () => {
    const inputs = Object.keys(metafile.inputs)
    const reached = [...staticallyReached(metafile, grantEntry)]
    expect(inputs.some((path) => path.includes('node_modules/zod/'))).toBe(true)
    expect(inputs).toContain('functions/http/problem.ts')
    expect(inputs).toContain('functions/domain/grant-request.schema.ts')
    expect(reached.filter((path) => path.includes('node_modules/zod/'))).toEqual([])
    expect(reached).not.toContain('functions/http/problem.ts')
    expect(reached).not.toContain('functions/domain/grant-request.schema.ts')
    // What the successful path runs at import is still there.
    expect(reached).toContain('functions/core/grant-tokens.ts')
    expect(reached).toContain('functions/domain/grant-limits.ts')
  })
})
