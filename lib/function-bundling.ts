import type { BuildOptions } from 'esbuild'

export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);"

/**
 * The one set of esbuild settings for every function. The stack builds every function's bundle
 * with it (lib/function-bundles.ts, one esbuild build per synthesis); tests and benchmarks that
 * build a bundle themselves read the same object (lib/esbuild-options.ts), so they cannot measure
 * or test a different artifact from the one that is deployed. These are the settings the stack's
 * NodejsFunction bundling used to pass esbuild: the bundles are byte for byte the same.
 */
export const FUNCTION_BUNDLING = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  // index.mjs.map beside each bundle, without the sources' text.
  sourcemap: true,
  sourcesContent: false,
  // Prefer ESM entry points so esbuild can tree-shake the SDK and zod.
  mainFields: ['module', 'main'],
  // Some CommonJS dependencies call require(); ESM output needs this shim for them.
  banner: { js: ESM_REQUIRE_BANNER },
  // Bundle the AWS SDK rather than take the runtime's copy: a pinned, tested version, and
  // esbuild includes only the commands the functions use.
  external: [],
  logLevel: 'warning',
} as const satisfies BuildOptions

/** NODE_OPTIONS for every function: stack traces through the source maps. */
export const NODE_OPTIONS = '--enable-source-maps'
