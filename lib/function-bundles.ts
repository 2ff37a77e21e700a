import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AssetHashType, DockerImage, type ILocalBundling, Stack } from 'aws-cdk-lib'
import { Code } from 'aws-cdk-lib/aws-lambda'
import type { IConstruct } from 'constructs'
import { buildSync } from 'esbuild'
import { esbuildOptionsForMany } from './esbuild-options'
import { FUNCTION_BUNDLING } from './function-bundling'

/** Where a build leaves one entry's bundle, beside CDK's bundling folders (see `bundle`). */
const BUILD_DIR_PREFIX = 'function-bundle-'

/**
 * Every function's bundle of one stack from ONE esbuild build: NodejsFunction runs esbuild once
 * per function (some sixty processes in a row, each parsing the AWS SDK again), where one build
 * with many entry points links them in parallel. The first function CDK asks to bundle builds
 * every entry the stack declared; each function's asset then takes its own two files. Where CDK
 * skips bundling (`aws:cdk:bundling-stacks`), nothing is built.
 */
export class FunctionBundles {
  private readonly pending = new Set<string>()
  /** Entry (relative to the project root) -> the folder its build left index.mjs(.map) in. */
  private readonly built = new Map<string, string>()

  constructor(
    private readonly projectRoot: string,
    entries: readonly string[],
  ) {
    for (const entry of entries) this.pending.add(entry)
  }

  /** The Lambda code of `entry`, as NodejsFunction's would be: same files, same asset hash. */
  code(entry: string): Code {
    this.pending.add(entry)
    const local: ILocalBundling & { toJSON(): unknown } = {
      tryBundle: (outputDir) => {
        this.take(entry, outputDir)
        return true
      },
      // What CDK hashes when it skips bundling (and keys its asset cache with): this entry and
      // the settings, never a folder of this run.
      toJSON: () => ({ entry, esbuild: FUNCTION_BUNDLING }),
    }
    // The source is the project root, as NodejsFunction's: the `aws:asset:path` of a function
    // whose bundling is skipped names it. OUTPUT: the hash is the bundle's, as NodejsFunction's.
    return Code.fromAsset(this.projectRoot, {
      assetHashType: AssetHashType.OUTPUT,
      // Local bundling always answers, so this image (required by the type) is never pulled.
      bundling: { image: DockerImage.fromRegistry('none'), local },
    })
  }

  /** Moves `entry`'s bundle into `outputDir`, building every pending entry first if needed. */
  private take(entry: string, outputDir: string) {
    if (!this.built.has(entry)) this.build(dirname(outputDir))
    const from = this.built.get(entry) as string
    for (const file of ['index.mjs', 'index.mjs.map']) {
      renameSync(join(from, file), join(outputDir, file))
    }
    rmSync(from, { recursive: true, force: true })
    this.built.delete(entry)
  }

  /**
   * One esbuild build of every entry not built yet. Each bundle goes to a folder beside CDK's
   * bundling folder (`outputDir`'s parent), as deep as it is, so the relative source paths in
   * each source map are the ones a build into `outputDir` itself writes.
   */
  private build(parent: string) {
    const entries = [...this.pending].map((entry, i) => ({
      entry,
      dir: join(parent, `${BUILD_DIR_PREFIX}${i}`),
    }))
    mkdirSync(parent, { recursive: true })
    buildSync({
      ...esbuildOptionsForMany(
        entries.map((e, i) => ({
          in: join(this.projectRoot, e.entry),
          out: `${BUILD_DIR_PREFIX}${i}/index`,
        })),
        parent,
      ),
      absWorkingDir: this.projectRoot,
    })
    for (const e of entries) {
      this.built.set(e.entry, e.dir)
      this.pending.delete(e.entry)
    }
  }
}

const byStack = new WeakMap<Stack, FunctionBundles>()

/**
 * Declares the entries of every function in `scope`'s stack, so the first bundling builds them
 * all. A function whose entry was not declared still gets its bundle (a build of its own).
 */
export const declareFunctionEntries = (
  scope: IConstruct,
  projectRoot: string,
  entries: readonly string[],
) => {
  const bundles = new FunctionBundles(projectRoot, entries)
  byStack.set(Stack.of(scope), bundles)
  return bundles
}

/** The bundles of `scope`'s top-level stack, a nested stack's parent's (declared or not). */
export const functionBundles = (scope: IConstruct, projectRoot: string) => {
  let stack = Stack.of(scope)
  while (stack.nestedStackParent) stack = stack.nestedStackParent
  const known = byStack.get(stack)
  if (known) return known
  return declareFunctionEntries(stack, projectRoot, [])
}
