import type { BuildOptions } from 'esbuild'
import { FUNCTION_BUNDLING } from './function-bundling'

const shared = (): BuildOptions => ({
  ...FUNCTION_BUNDLING,
  mainFields: [...FUNCTION_BUNDLING.mainFields],
  banner: { ...FUNCTION_BUNDLING.banner },
  external: [...FUNCTION_BUNDLING.external],
})

/**
 * The esbuild options of one function's bundle, for code that builds a bundle itself (the
 * benchmark, tests), so it measures what the stack deploys.
 */
export const esbuildOptions = (entry: string, outfile: string): BuildOptions => ({
  ...shared(),
  entryPoints: [entry],
  outfile,
})

/**
 * The same options for many functions in one build (what the stack runs): each entry's bundle is
 * `<outdir>/<out>.mjs` with its source map beside it, as a build of that entry alone writes them.
 */
export const esbuildOptionsForMany = (
  entries: readonly { in: string; out: string }[],
  outdir: string,
): BuildOptions => ({
  ...shared(),
  entryPoints: entries.map((e) => ({ ...e })),
  outdir,
  outExtension: { '.js': '.mjs' },
})
