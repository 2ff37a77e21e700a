import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs'

/**
 * The one set of esbuild settings for every function. The stack uses it through NodejsFunction;
 * tests and benchmarks that build a bundle themselves read the same object, so they cannot
 * measure or test a different artifact from the one that is deployed.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);"

export const FUNCTION_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // Prefer ESM entry points so esbuild can tree-shake the SDK and zod.
  mainFields: ['module', 'main'],
  // Some CommonJS dependencies call require(); ESM output needs this shim for them.
  banner: ESM_REQUIRE_BANNER,
  // Bundle the AWS SDK rather than take the runtime's copy: a pinned, tested version, and
  // esbuild includes only the commands the functions use.
  externalModules: [],
  // Bundling runs with the local esbuild; never fall back to Docker.
  forceDockerBundling: false,
  logLevel: LogLevel.WARNING,
} as const satisfies BundlingOptions

/** NODE_OPTIONS for every function: stack traces through the source maps. */
export const NODE_OPTIONS = '--enable-source-maps'
