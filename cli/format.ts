import { csvCell } from '../functions/domain/csv'
import { showBidiControls } from '../functions/domain/text-rules'

/** Plain-text tables and CSV for the admin CLI; --json bypasses both. */
export const table = (headers: string[], given: string[][]): string => {
  if (given.length === 0) return '(none)'
  // Names stored before the bidi rule are shown with their controls written out.
  const rows = given.map((r) => r.map(showBidiControls))
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

/**
 * CSV as the management API's export writes it (functions/domain/csv.ts): every cell quoted,
 * formulas neutralised, safe in a ',' and a ';' locale. Lines end with LF, as the terminal's.
 */
export const csv = (headers: string[], rows: string[][]): string =>
  [headers, ...rows].map((r) => r.map(csvCell).join(',')).join('\n')

export const when = (epochMs: number | undefined) =>
  epochMs === undefined ? 'never' : new Date(epochMs).toISOString()
