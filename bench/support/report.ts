/** The bench's table: one row per figure, with its baseline from the same run and its target. */
export type Row = {
  metric: string
  value: string
  baseline?: string
  ratio?: number
  target?: string
  met?: boolean
}

/** A figure against its baseline from the same run, met when their ratio is at most `limit`. */
export const ratioRow = (
  metric: string,
  value: number,
  baseline: number,
  limit: number,
  shown: { value?: string; baseline?: string } = {},
): Row => ({
  metric,
  value: shown.value ?? String(round(value)),
  baseline: shown.baseline ?? String(round(baseline)),
  ratio: round(value / baseline),
  target: `<= ${limit}`,
  met: value / baseline <= limit,
})

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}
export const median = (values: number[]) => percentile(values, 50)
export const round = (n: number, digits = 2) => Number(n.toFixed(digits))

export type Environment = {
  date: string
  node: string
  cpu: string
  cores: number
  seconds: number
  logBytesDropped: number
}

/** bench/results.json: the run's environment, its rows in order, and every figure behind them. */
export type Results = {
  environment: Environment
  rows: Row[]
  results: Record<string, unknown>
}

/** Sets `value` at `path` in `target`, merged into what is there (a benchmark's own results). */
export const setAt = (
  target: Record<string, unknown>,
  path: readonly string[],
  value: Record<string, unknown>,
) => {
  let node = target
  for (const key of path.slice(0, -1)) {
    node[key] = (node[key] as Record<string, unknown> | undefined) ?? {}
    node = node[key] as Record<string, unknown>
  }
  const last = path.at(-1) as string
  // A run that succeeded replaces an earlier run's failure.
  const { failed: _earlier, ...kept } = (node[last] as Record<string, unknown> | undefined) ?? {}
  node[last] = { ...kept, ...value }
}

/** What a row is called up to its unit or detail in parentheses, which a re-run may change. */
const rowName = (row: Row) => row.metric.split(' (')[0] as string
/** The name with its figures blanked: "median of 17" and "median of 41" are one row. */
const rowShape = (row: Row) => rowName(row).replace(/\d[\d,.]*/g, '#')

/**
 * A run of some benchmarks only (BENCH_ONLY): their rows replace the rows of the same name in the
 * previous results (or the one row of the same name but for its figures, a changed repetition
 * count say), or follow the last row of their group (the words before the first colon), or come
 * last; their figures replace the earlier ones, dated on their own (the other rows keep the
 * date of the run that measured them).
 */
export const mergeRows = (previous: Row[], fresh: Row[]) => {
  const rows = [...previous]
  for (const row of fresh) {
    const at = rows.findIndex((r) => rowName(r) === rowName(row))
    const alike = rows.flatMap((r, i) => (rowShape(r) === rowShape(row) ? [i] : []))
    const only =
      alike.length === 1 && fresh.filter((f) => rowShape(f) === rowShape(row)).length === 1
    if (at >= 0 || only) {
      rows[at >= 0 ? at : (alike[0] as number)] = row
      continue
    }
    const group = row.metric.includes(':') ? `${row.metric.split(':')[0]}:` : undefined
    const after = group === undefined ? -1 : rows.findLastIndex((r) => r.metric.startsWith(group))
    if (after >= 0) rows.splice(after + 1, 0, row)
    else rows.push(row)
  }
  return rows
}

const WIDTHS = [46, 36, 40, 6, 18]
const cell = (s: string | undefined, w: number) => (s ?? '').padEnd(w)

/** The table `npm run bench` prints. */
export const formatTable = (heading: string, rows: Row[]) =>
  [
    heading,
    ['metric', 'value', 'baseline (same run)', 'ratio', 'target']
      .map((h, i) => cell(h, WIDTHS[i] as number))
      .join(' '),
    ...rows.map((r) =>
      [
        r.metric,
        r.value,
        r.baseline,
        r.ratio === undefined ? '' : String(r.ratio),
        r.target === undefined ? '' : `${r.target} ${r.met ? 'met' : 'MISSED'}`,
      ]
        .map((s, i) => cell(s, WIDTHS[i] as number))
        .join(' ')
        .trimEnd(),
    ),
  ].join('\n')
