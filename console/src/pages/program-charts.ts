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
const STYLES = [
  { color: '#0072B2', mark: 'none' },
  { color: '#D55E00', mark: 'diagonal' },
  { color: '#E69F00', mark: 'dots' },
  { color: '#CC79A7', mark: 'cross' },
  { color: '#56B4E9', mark: 'vertical' },
  { color: '#009E73', mark: 'horizontal' },
] as const
type Style = (typeof STYLES)[number]

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
  maintainAspectRatio: false,
  plugins: { legend: { position: 'bottom' } },
} as const

const draw = (canvas: HTMLCanvasElement, config: ChartConfiguration<'bar' | 'line'>) => {
  const chart = new Chart(canvas, config)
  return () => chart.destroy()
}

/** Grants per day: each outcome a stacked bar, the grants made that day a line over them. */
export const drawOutcomes = (canvas: HTMLCanvasElement, rows: OutcomeRow[]) =>
  draw(canvas, {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.date),
      datasets: [
        {
          type: 'line',
          label: 'Made',
          data: rows.map((r) => r.made),
          borderColor: '#000000',
          backgroundColor: '#000000',
          borderDash: [6, 3],
          pointRadius: rows.length > 60 ? 0 : 2,
          stack: 'made',
        },
        ...OUTCOMES.map((outcome, i) => ({
          type: 'bar' as const,
          label: outcome.label,
          data: rows.map((r) => r[outcome.key]),
          backgroundColor: fill(styleAt(i)),
          borderColor: styleAt(i).color,
          borderWidth: 1,
          stack: 'outcomes',
        })),
      ],
    },
    options: {
      ...COMMON,
      scales: {
        x: { stacked: true },
        y: { stacked: true, beginAtZero: true, title: { display: true, text: 'Grants' } },
      },
    },
  })

/** The funnel: made, offered, accepted and each reason a grant went no further, side by side. */
export const drawFunnel = (canvas: HTMLCanvasElement, steps: FunnelStep[]) =>
  draw(canvas, {
    type: 'bar',
    data: {
      labels: steps.map((s) => s.label),
      datasets: [
        {
          label: 'Grants',
          data: steps.map((s) => s.count),
          backgroundColor: steps.map((_, i) => fill(styleAt(i < 3 ? 0 : i - 2))),
          borderColor: steps.map((_, i) => styleAt(i < 3 ? 0 : i - 2).color),
          borderWidth: 1,
        },
      ],
    },
    options: {
      ...COMMON,
      indexAxis: 'y',
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, title: { display: true, text: 'Grants' } } },
    },
  })

/** The pool: shares issued and returned per day as bars, what remained at day's end as a line. */
export const drawPool = (canvas: HTMLCanvasElement, rows: PoolRow[]) => {
  const limited = rows.some((r) => r.remaining !== null)
  return draw(canvas, {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.date),
      datasets: [
        {
          type: 'bar',
          label: 'Issued',
          data: rows.map((r) => r.issued),
          backgroundColor: fill(styleAt(0)),
          borderColor: styleAt(0).color,
          borderWidth: 1,
        },
        {
          type: 'bar',
          label: 'Returned',
          data: rows.map((r) => r.returned),
          backgroundColor: fill(styleAt(1)),
          borderColor: styleAt(1).color,
          borderWidth: 1,
        },
        ...(limited
          ? [
              {
                type: 'line' as const,
                label: 'Remaining at end of day',
                data: rows.map((r) => r.remaining),
                borderColor: '#000000',
                backgroundColor: '#000000',
                borderDash: [6, 3],
                pointRadius: rows.length > 60 ? 0 : 2,
                yAxisID: 'remaining',
              },
            ]
          : []),
      ],
    },
    options: {
      ...COMMON,
      scales: {
        y: { beginAtZero: true, title: { display: true, text: 'Shares per day' } },
        ...(limited
          ? {
              remaining: {
                position: 'right' as const,
                beginAtZero: true,
                grid: { drawOnChartArea: false },
                title: { display: true, text: 'Remaining' },
              },
            }
          : {}),
      },
    },
  })
}
