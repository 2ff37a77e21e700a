import type { BenchContext } from './context'
import type { Row } from './report'

/**
 * One benchmark: its rows for the table, and its figures, which the runner puts at `resultPath`
 * in bench/results.json's `results`.
 */
export type Benchmark = {
  title: string
  resultPath: readonly string[]
  run: (bench: BenchContext) => Promise<{ rows: Row[]; result: Record<string, unknown> }>
}
