import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js'
import { type FunnelStep, OUTCOMES, type OutcomeRow, type PoolRow } from '../figures-shape'

/**
 * The program page's three charts, drawn with Chart.js (docs/decisions/console-charts.md). This
 * module is the only one that imports the library, and program-figures.tsx loads it with
 * `import()` when the figures section mounts: never part of the console's first page.
 */
Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
)

/** Okabe–Ito colours (told apart with any common colour-blindness), each with its own pattern. */
type Style = {
  color: string
  mark: 'none' | 'diagonal' | 'dots' | 'cross' | 'vertical' | 'horizontal'
}
const STYLES: readonly Style[] = (
  [
    ['#0072B2', 'none'],
    ['#D55E00', 'diagonal'],
    ['#E69F00', 'dots'],
    ['#CC79A7', 'cross'],
    ['#56B4E9', 'vertical'],
    ['#009E73', 'horizontal'],
  ] as const
).map(([color, mark]) => ({ color, mark }))

/** A fill of the colour with its pattern drawn over it in white, so colour is not the only cue. */
const fill = (style: Style): string | CanvasPattern => {
  if (style.mark === 'none') return style.color
  const tile = document.createElement('canvas')
  tile.width = 8
  tile.height = 8
  const g = tile.getContext('2d')
  if (!g) return style.color
  g.fillStyle = style.color
  g.fillRect(0, 0, 8, 8)
  g.strokeStyle = 'rgba(255,255,255,0.85)'
  g.fillStyle = 'rgba(255,255,255,0.85)'
  g.lineWidth = 1.5
  g.beginPath()
  if (style.mark === 'diagonal') {
    g.moveTo(0, 8)
    g.lineTo(8, 0)
  } else if (style.mark === 'dots') {
    g.arc(4, 4, 1.6, 0, Math.PI * 2)
    g.fill()
  } else if (style.mark === 'cross') {
    g.moveTo(0, 0)
    g.lineTo(8, 8)
    g.moveTo(8, 0)
    g.lineTo(0, 8)
  } else if (style.mark === 'vertical') {
    g.moveTo(4, 0)
    g.lineTo(4, 8)
  } else {
    g.moveTo(0, 4)
    g.lineTo(8, 4)
  }
  g.stroke()
  return g.createPattern(tile, 'repeat') ?? style.color
}

const styleAt = (i: number) => STYLES[i % STYLES.length] as Style

/** Drawn at once (no animation: reduced motion, and a screenshot shows the final chart). */
const COMMON = {
  animation: false,
  responsive: true,
  aspectRatio: 2.4,
  plugins: { legend: { position: 'bottom' } },
} as const

/** A series as bars: its colour, pattern and outline. */
const bars = (label: string, data: (number | null)[], i: number, stack?: string) => ({
  type: 'bar' as const,
  label,
  data,
  backgroundColor: fill(styleAt(i)),
  borderColor: styleAt(i).color,
  borderWidth: 1,
  ...(stack ? { stack } : {}),
})

/** A series as a dashed black line over the bars (points hidden on long ranges). */
const line = (
  label: string,
  data: (number | null)[],
  more: { stack?: string; yAxisID?: string },
) => ({
  type: 'line' as const,
  label,
  data,
  borderColor: '#000000',
  backgroundColor: '#000000',
  borderDash: [6, 3],
  pointRadius: data.length > 60 ? 0 : 2,
  ...more,
})

type Config = ChartConfiguration<'bar' | 'line'>

/** A chart of bars (and lines) on the canvas, one label per bar; answers how to destroy it. */
const draw = (
  canvas: HTMLCanvasElement,
  labels: string[],
  datasets: Config['data']['datasets'],
  options: Config['options'],
) => {
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets },
    options: { ...COMMON, ...options },
  })
  return () => chart.destroy()
}

/** Grants per day: each outcome a stacked bar, the grants made that day a line over them. */
export const drawOutcomes = (canvas: HTMLCanvasElement, rows: OutcomeRow[]) => {
  const made = line(
    'Made',
    rows.map((r) => r.made),
    { stack: 'made' },
  )
  const outcomes = OUTCOMES.map((o, i) =>
    bars(
      o.label,
      rows.map((r) => r[o.key]),
      i,
      'outcomes',
    ),
  )
  return draw(
    canvas,
    rows.map((r) => r.date),
    [made, ...outcomes],
    {
      scales: {
        x: { stacked: true },
        y: { stacked: true, beginAtZero: true, title: { display: true, text: 'Grants' } },
      },
    },
  )
}

/** Each reason in the funnel drawn as its outcome is in the first chart (the stages in blue). */
const FUNNEL_STYLE: Partial<Record<FunnelStep['key'], number>> = {
  declined: 1,
  ineligibleAge: 2,
  ineligibleCountry: 5,
  expired: 3,
  canceled: 4,
}

/** The funnel: made, offered, accepted and each reason a grant went no further, side by side. */
export const drawFunnel = (canvas: HTMLCanvasElement, steps: FunnelStep[]) => {
  const styles = steps.map((s) => styleAt(FUNNEL_STYLE[s.key] ?? 0))
  const grants = {
    label: 'Grants',
    data: steps.map((s) => s.count),
    backgroundColor: styles.map(fill),
    borderColor: styles.map((style) => style.color),
    borderWidth: 1,
  }
  return draw(
    canvas,
    steps.map((s) => s.label),
    [grants],
    {
      indexAxis: 'y',
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'Grants' } } },
    },
  )
}

/** The pool: shares issued and returned per day as bars, what remained at day's end as a line. */
export const drawPool = (canvas: HTMLCanvasElement, rows: PoolRow[]) => {
  const limited = rows.some((r) => r.remaining !== null)
  const issued = bars(
    'Issued',
    rows.map((r) => r.issued),
    0,
  )
  const returned = bars(
    'Returned',
    rows.map((r) => r.returned),
    1,
  )
  const remaining = line(
    'Remaining at end of day',
    rows.map((r) => r.remaining),
    {
      yAxisID: 'remaining',
    },
  )
  const right = {
    position: 'right' as const,
    beginAtZero: true,
    grid: { drawOnChartArea: false },
    title: { display: true, text: 'Remaining' },
  }
  return draw(
    canvas,
    rows.map((r) => r.date),
    limited ? [issued, returned, remaining] : [issued, returned],
    {
      scales: {
        y: { beginAtZero: true, title: { display: true, text: 'Shares per day' } },
        ...(limited ? { remaining: right } : {}),
      },
    },
  )
}
