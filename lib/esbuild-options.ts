import type { BuildOptions } from 'esbuild'
import { FUNCTION_BUNDLING } from './function-bundling'

/**
 * The esbuild options NodejsFunction derives from FUNCTION_BUNDLING, for code that builds a
 * bundle itself (the benchmark), so it measures what the stack deploys.
 */
export const esbuildOptions = (entry: string, outfile: string): BuildOptions => ({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: FUNCTION_BUNDLING.format === 'esm' ? 'esm' : 'cjs',
  target: FUNCTION_BUNDLING.target,
  minify: FUNCTION_BUNDLING.minify,
  sourcemap: FUNCTION_BUNDLING.sourceMap,
  sourcesContent: FUNCTION_BUNDLING.sourcesContent,
  mainFields: [...FUNCTION_BUNDLING.mainFields],
  banner: { js: FUNCTION_BUNDLING.banner },
  external: [...FUNCTION_BUNDLING.externalModules],
  logLevel: 'warning',
})
