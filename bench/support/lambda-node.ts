/**
 * The Node.js that Lambda runs the functions on (the bundles' esbuild target, which the stack's
 * runtime matches): start-up figures are measured on it, not on whatever Node.js runs the bench.
 * When the running Node.js is another major, the npm registry's `node@<major>` package is used,
 * installed once into the same cache `.ci/run` uses.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { FUNCTION_BUNDLING } from '../../lib/function-bundling'

export const LAMBDA_NODE_MAJOR = Number(FUNCTION_BUNDLING.target.replace('node', ''))

export const lambdaNode = (): { path: string; version: string } => {
  if (Number(process.versions.node.split('.')[0]) === LAMBDA_NODE_MAJOR) {
    return { path: process.execPath, version: process.version }
  }
  const dir =
    process.env.NODE24_DIR ??
    join(homedir(), '.cache', 'virtual-share-grants', `node${LAMBDA_NODE_MAJOR}`)
  const path = join(dir, 'node_modules', 'node', 'bin', 'node')
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true })
    const args = ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir]
    execFileSync('npm', [...args, `node@${LAMBDA_NODE_MAJOR}`], { stdio: 'ignore' })
  }
  return { path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() }
}
