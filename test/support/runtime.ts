import { buildRuntime, type Runtime } from '../../functions/composition'
import { loadConfig } from '../../functions/config'

/**
 * A clock a test moves instead of sleeping: `base` plus whatever it was moved by. The functions
 * built over this runtime read it through their injected clock; nothing global is patched.
 */
export class TestClock {
  private offset = 0
  private frozen: number | undefined
  constructor(private readonly base: () => number) {}
  readonly now = (): number => this.frozen ?? this.base() + this.offset
  /** Moves the clock forward by `ms` (backward with a negative `ms`). */
  advance(ms: number) {
    if (this.frozen === undefined) this.offset += ms
    else this.frozen += ms
  }
  /** Stops the clock at `at` (default: now); it then moves only by `advance`, until `thaw`. */
  freeze(at = this.now()) {
    this.frozen = at
  }
  /** Runs on from where it stands, at the base clock's pace. */
  thaw() {
    if (this.frozen === undefined) return
    this.offset = this.frozen - this.base()
    this.frozen = undefined
  }
  /** Back to the base clock. */
  reset() {
    this.offset = 0
    this.frozen = undefined
  }
}

/** The wall clock of every function this test process builds (createdAt, expiry, grace). */
export const wallClock = new TestClock(() => Date.now())
/** The monotonic clock the grant path's access cache ages its checks by. */
export const checkClock = new TestClock(() => performance.now())

/**
 * The test process's composition root: the configuration of the run's DynamoDB Local, tables and
 * emulator (test/support/global-setup.ts writes them into the environment every worker inherits),
 * one DynamoDB client for the whole file, and clocks the tests move.
 */
const environment: Readonly<Record<string, string | undefined>> = { ...process.env }
export const config = loadConfig(environment)
export const runtime = buildRuntime(config, { clock: wallClock, monotonic: checkClock })
export const { dynamodb, documentClient } = runtime

/**
 * This runtime with more configuration (what the stack sets only on some functions: the user
 * pool, the mail), over the same client and clocks: for the test files whose routes need it.
 */
export const runtimeWith = (variables: Record<string, string>): Runtime =>
  buildRuntime(loadConfig({ ...environment, ...variables }), {
    dynamodb,
    documentClient,
    clock: wallClock,
    monotonic: checkClock,
  })
