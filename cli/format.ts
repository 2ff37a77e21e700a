/** Plain-text tables and CSV for the admin CLI; --json bypasses both. */
export const table = (headers: string[], rows: string[][]): string => {
  if (rows.length === 0) return '(none)'
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

const csvCell = (value: string) => {
  // Neutralise spreadsheet formulas as well as quoting: reasons and e-mails come from integrators.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

export const csv = (headers: string[], rows: string[][]): string =>
  [headers, ...rows].map((r) => r.map(csvCell).join(',')).join('\n')

export const when = (epochMs: number | undefined) =>
  epochMs === undefined ? 'never' : new Date(epochMs).toISOString()
