import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Program } from '../api'
import { type DailyFigures, figuresApi } from '../figures-api'
import {
  checkRange,
  funnelOf,
  OUTCOMES,
  outcomeRows,
  poolRows,
  presetOf,
  presetRange,
  RANGE_PRESETS,
  summaries,
  utcToday,
} from '../figures-shape'
import { useScope } from '../scope'
import { Alert, DataTable, useLoad } from '../ui'
import { formatNumber } from '../ui-format'
import { Field, inputValue } from '../ui-forms'
import { ProgramHolders } from './program-holders'

type Charts = typeof import('./program-charts')
type Draw = (charts: Charts, canvas: HTMLCanvasElement) => () => void

/**
 * A chart: its heading, its canvas (an image to assistive technology, named by a sentence that
 * sums it up) drawn once the chart module has loaded, and the same numbers as a table.
 */
const ChartFigure = ({
  id,
  title,
  summary,
  charts,
  draw,
  table,
}: {
  id: string
  title: string
  summary: string
  charts: Charts | undefined
  draw: Draw
  table: ComponentChildren
}) => {
  const canvas = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    if (!charts || !canvas.current) return
    return draw(charts, canvas.current)
  }, [charts, draw])
  return (
    <figure class="chart" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <div class="chart-box" style={{ position: 'relative', maxWidth: '60rem' }}>
        <canvas ref={canvas} role="img" aria-label={summary} data-chart={id}>
          {summary}
        </canvas>
      </div>
      <details class="chart-table">
        <summary>Show {title.toLowerCase()} as a table</summary>
        {table}
      </details>
    </figure>
  )
}

const n = formatNumber

const OutcomesTable = ({ figures }: { figures: DailyFigures }) => (
  <DataTable
    caption={`Grants per day by outcome, ${figures.from} to ${figures.to}`}
    columns={['Day', 'Made', ...OUTCOMES.map((o) => o.label)]}
  >
    {outcomeRows(figures.days).map((row) => (
      <tr key={row.date}>
        <th scope="row">{row.date}</th>
        <td class="num">{n(row.made)}</td>
        {OUTCOMES.map((o) => (
          <td class="num" key={o.key}>
            {n(row[o.key])}
          </td>
        ))}
      </tr>
    ))}
  </DataTable>
)

const FunnelTable = ({ figures }: { figures: DailyFigures }) => {
  const funnel = funnelOf(figures.totals)
  return (
    <DataTable
      caption={`Acceptance funnel, ${figures.from} to ${figures.to}: grants, and their share of those made`}
      columns={['Stage', 'Grants', 'Of made']}
    >
      {[...funnel.steps, ...funnel.reasons].map((step, i) => (
        <tr key={step.key}>
          <th scope="row">
            {i < funnel.steps.length ? step.label : `Not accepted: ${step.label}`}
          </th>
          <td class="num">{n(step.count)}</td>
          <td class="num">{step.ofMade}</td>
        </tr>
      ))}
    </DataTable>
  )
}

const PoolTable = ({ figures }: { figures: DailyFigures }) => (
  <DataTable
    caption={`Pool over time, ${figures.from} to ${figures.to}: shares per day`}
    columns={['Day', 'Issued', 'Returned', 'Remaining at end of day']}
  >
    {poolRows(figures.days).map((row) => (
      <tr key={row.date}>
        <th scope="row">{row.date}</th>
        <td class="num">{n(row.issued)}</td>
        <td class="num">{n(row.returned)}</td>
        <td class="num">{row.remaining === null ? 'No limit' : n(row.remaining)}</td>
      </tr>
    ))}
  </DataTable>
)

/** The three charts of a range: what each is called, sums up, draws and shows as a table. */
const chartsOf = (data: DailyFigures) => {
  const said = summaries(data, data.days, data.totals)
  const funnel = funnelOf(data.totals)
  const draws: Record<'outcomes' | 'funnel' | 'pool', Draw> = {
    outcomes: (c, el) => c.drawOutcomes(el, outcomeRows(data.days)),
    funnel: (c, el) => c.drawFunnel(el, [...funnel.steps, ...funnel.reasons]),
    pool: (c, el) => c.drawPool(el, poolRows(data.days)),
  }
  return [
    { key: 'outcomes', title: 'Grants per day by outcome', Table: OutcomesTable },
    { key: 'funnel', title: 'Acceptance funnel', Table: FunnelTable },
    { key: 'pool', title: 'Pool over time', Table: PoolTable },
  ].map(({ key, title, Table }) => ({
    id: `chart-${key}`,
    title,
    summary: said[key as keyof typeof said],
    draw: draws[key as keyof typeof draws],
    table: <Table figures={data} />,
  }))
}

const DateField = (props: {
  label: string
  value: string
  error: string | undefined
  onValue: (value: string) => void
}) => (
  <Field label={props.label} error={props.error}>
    {(field) => (
      <input
        {...field}
        type="date"
        value={props.value}
        onInput={(e) => props.onValue(inputValue(e))}
      />
    )}
  </Field>
)

/** The chart module, loaded on first use (Chart.js and the drawing code: their own chunk). */
const useCharts = () => {
  const [charts, setCharts] = useState<Charts>()
  const [error, setError] = useState('')
  useEffect(() => {
    let live = true
    import('./program-charts')
      .then((loaded) => live && setCharts(loaded))
      .catch(() => live && setError('The charts could not be loaded; their tables are below.'))
    return () => {
      live = false
    }
  }, [])
  return { charts, error }
}

/** The daily figures of a date range (the last 30 days at first) as three charts and tables. */
const ProgramCharts = ({ program }: { program: Program }) => {
  const scope = useScope()
  const today = utcToday()
  const [range, setRange] = useState(() => presetRange(RANGE_PRESETS[0], today))
  const [typed, setTyped] = useState(range)
  const [errors, setErrors] = useState<{ from?: string; to?: string }>({})
  const figures = useMemo(
    () => figuresApi(scope.issuerId, program.id),
    [scope.issuerId, program.id],
  )
  const { data, error, loading } = useLoad(() => figures.daily(range), [figures, range])
  const { charts, error: chartsError } = useCharts()
  const choose = (next: { from: string; to: string }) => {
    setErrors({})
    setTyped(next)
    setRange(next)
  }
  // Each chart is drawn again when its data changes (and destroyed first by the effect's cleanup).
  const figuresShown = useMemo(() => (data ? chartsOf(data) : []), [data])
  const pressed = presetOf(range, today)
  return (
    <section aria-labelledby="program-charts">
      <h2 id="program-charts">Daily figures</h2>
      <fieldset class="field">
        <legend>Date range</legend>
        <div class="actions">
          {RANGE_PRESETS.map((days) => (
            <button
              type="button"
              key={days}
              aria-pressed={pressed === days ? 'true' : 'false'}
              onClick={() => choose(presetRange(days, today))}
            >
              Last {days} days
            </button>
          ))}
        </div>
      </fieldset>
      <form
        class="inline-form"
        aria-label="Date range"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          const found = checkRange(typed.from, typed.to)
          setErrors(found)
          if (!found.from && !found.to) setRange(typed)
        }}
      >
        <DateField
          label="First day (UTC)"
          value={typed.from}
          error={errors.from}
          onValue={(from) => setTyped({ ...typed, from })}
        />
        <DateField
          label="Last day (UTC)"
          value={typed.to}
          error={errors.to}
          onValue={(to) => setTyped({ ...typed, to })}
        />
        <button type="submit">Show figures</button>
      </form>
      <Alert>{error}</Alert>
      <Alert>{chartsError}</Alert>
      {loading && !data ? <p role="status">Loading the daily figures…</p> : null}
      {data ? (
        <div class="charts" aria-busy={loading ? 'true' : 'false'}>
          {figuresShown.map((chart) => (
            <ChartFigure key={chart.id} {...chart} charts={charts} />
          ))}
        </div>
      ) : null}
    </section>
  )
}

/** The program's holders and its daily figures (issue 32): every member can read them. */
export const ProgramFigures = ({ program }: { program: Program }) => (
  <>
    <ProgramHolders program={program} />
    <ProgramCharts program={program} />
  </>
)
