import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * The repository's root: the nearest folder at or above the working directory whose package.json
 * is this project's. Found from the working directory rather than `__dirname`, so the same helpers
 * load under Jest (CommonJS) and in the bench (ES modules under tsx), where `__dirname` does not
 * exist; both run from the checkout (npm scripts, CI).
 */
const findRoot = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name ===
        'virtual-share-grants'
    ) {
      return dir
    }
    if (dirname(dir) === dir)
      throw new Error(`Run from inside the checkout (no root above ${from})`)
  }
}

export const ROOT = findRoot(process.cwd())
