/**
 * CSV as RFC 4180 has it, both ways: the export of a program's grants (written) and the rows of a
 * batch (read). Shared by the management routes; no dependency.
 */

/**
 * Characters that make a spreadsheet read a cell as a formula (CSV injection, OWASP): `=`, `+`,
 * `-`, `@`, and tab and carriage return, which some spreadsheets skip before looking. Before them
 * may come any run of white space (space, NBSP, U+2028 ...) and format characters (zero-width
 * space, BOM ...), which some spreadsheets skip too: ` =1` and `\u200B=1` are formulas to them.
 */
const FORMULA_START = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u

/**
 * Where a reader that splits on `;` starts a cell inside one of ours: after a `;`, and after a line
 * break (once its quote state no longer matches ours). Spreadsheets whose list separator is `;`
 * (German, French, Dutch locales) read a comma-separated file that way, so in
 * `Bob;=cmd|' /C calc'!A0` the `=` after the `;` would begin a cell. Quotes in between are skipped,
 * as a lenient reader may drop them, and white space and format characters as at the start; at the
 * end of the text, what follows is our own quote and line break, which would make the next cell
 * start with a carriage return.
 */
const FORMULA_AFTER_BREAK = /([;\r\n])(?=["\p{White_Space}\p{Cf}]*(?:[=+\-@\t\r]|$))/gu

/**
 * One cell, always quoted (quotes doubled), so that no separator or line break inside it is read
 * as one by a `,` reader. A text that starts like a formula gets a single quote in front (`=1+2`
 * becomes `'=1+2`, shown as text by Excel, LibreOffice and Google Sheets), and so does what follows
 * a `;` or a line break inside it (`Bob;'=cmd`), for the readers that split on `;`. Numbers are
 * written as they are, in quotes; an absent value is an empty cell.
 */
export const csvCell = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return '""'
  if (typeof value === 'number') return `"${value}"`
  const text = (FORMULA_START.test(value) ? `'${value}` : value).replace(FORMULA_AFTER_BREAK, "$1'")
  return `"${text.replaceAll('"', '""')}"`
}

/** One record, CRLF-terminated as RFC 4180 says. */
export const csvLine = (cells: readonly (string | number | null | undefined)[]) =>
  `${cells.map(csvCell).join(',')}\r\n`

export type CsvRecord = {
  /** The record's number in the file, the header being 1: the row a spreadsheet shows. */
  row: number
  fields: string[]
}

/** A CSV that cannot be read as records at all (an unclosed quote, text after a closing quote). */
export class CsvSyntaxError extends Error {
  constructor(
    readonly row: number,
    message: string,
  ) {
    super(`row ${row}: ${message}`)
  }
}

/**
 * Reads RFC 4180 CSV: fields separated by commas, records by CRLF, LF or CR; a quoted field may hold
 * commas, quotes (doubled) and line breaks. A leading byte order mark is dropped, and a line break
 * at the very end makes no empty record. Lenient where spreadsheets are: a quote inside an
 * unquoted field is kept as it is. Refused (CsvSyntaxError): a quoted field never closed, or
 * anything but a comma or a line break right after a closing quote.
 */
export const parseCsv = (text: string): CsvRecord[] => {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const records: CsvRecord[] = []
  let fields: string[] = []
  let field = ''
  let row = 1
  let i = 0
  const endRecord = () => {
    fields.push(field)
    records.push({ row, fields })
    fields = []
    field = ''
    row++
  }
  while (i < source.length) {
    const c = source[i] as string
    if (c === '"' && field === '') {
      // A quoted field: up to the quote that is not doubled.
      const started = row
      i++
      for (;;) {
        if (i >= source.length) throw new CsvSyntaxError(started, 'a quoted field is not closed')
        const q = source[i] as string
        if (q === '"') {
          if (source[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        field += q
        i++
      }
      const next = source[i]
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        throw new CsvSyntaxError(
          started,
          'after a closing quote comes a comma or the end of the line (a quote inside a quoted field is written "")',
        )
      }
      continue
    }
    if (c === ',') {
      fields.push(field)
      field = ''
      i++
      continue
    }
    if (c === '\r' || c === '\n') {
      endRecord()
      i += c === '\r' && source[i + 1] === '\n' ? 2 : 1
      continue
    }
    field += c
    i++
  }
  // The last record, unless the text ended with a line break (or is empty).
  if (field !== '' || fields.length > 0) endRecord()
  return records
}
