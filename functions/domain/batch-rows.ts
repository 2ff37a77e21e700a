import { BATCH_LIMITS, type RowProblem, type StoredRow } from './batch'
import { CsvSyntaxError, parseCsv } from './csv'
import { type FieldError, ValidationFailed } from './errors'
import { GrantRequestSchema, LIMITS } from './grant-request.schema'
import { zodIssuesToFieldErrors } from './validation'

/**
 * The rows of a batch's CSV, each checked with the grant API's own schema (GrantRequestSchema):
 * the same rules as one grant. Columns (header row required, names in any case and order):
 * `email`, `amount`, optional `name`, optional `reason` (else the batch's `reason`).
 *
 * A duplicate is a valid row with the same recipient e-mail (normalised), amount and reason (its
 * own or the batch's) as an earlier valid row: a name does not make it another grant. It is
 * refused (`duplicate_row`, naming the first), so a row pasted twice is never granted twice; to
 * grant the same person the same amount twice on purpose, give the rows different reasons.
 */
export const BATCH_COLUMNS = ['email', 'amount', 'name', 'reason'] as const
/**
 * Columns read and ignored: those of a batch's results export (GetGrantBatch as CSV,
 * http/batch-view.ts), so that its failed rows, fixed, can be sent again as they are.
 */
export const RESULT_COLUMN_PREFIX = 'result_'
type Column = (typeof BATCH_COLUMNS)[number]

export type CheckedRows = {
  rows: StoredRow[]
  valid: number
  invalid: number
  duplicates: number
  /** The sum of the valid rows' amounts (duplicates left out). */
  amount: number
}

/** A kept value of a refused row: at most `keptChars` characters. */
const kept = (value: string) =>
  value.length > BATCH_LIMITS.keptChars ? `${value.slice(0, BATCH_LIMITS.keptChars)}…` : value

/** The schema's field names, as the CSV's columns. */
const column = (field: string) =>
  field === 'recipient.email' ? 'email' : field === 'recipient.name' ? 'name' : field
const asColumns = (errors: FieldError[]): FieldError[] =>
  errors.map((e) => ({
    field: column(e.field),
    message: e.message.replace(/^recipient\.(email|name)\b/, '$1'),
  }))

/** `1`, ` 25 `: a whole number; anything else is kept as text for the schema to refuse clearly. */
const amountOf = (text: string): number | string => {
  const trimmed = text.trim()
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed
}

/**
 * Reads and checks the CSV. A CSV that cannot be used at all (over 1 MB, unreadable, no header
 * row, an unknown or repeated column, a required column missing, no rows, over
 * BATCH_LIMITS.maxRows rows) is `400 validation_failed` with `field: "csv"`. `source`: an
 * uploaded CSV has its own size limit. Otherwise every row is returned, refused ones with
 * their problem; blank lines are skipped (and not counted), and rows keep the number a spreadsheet
 * shows them at (the header is row 1).
 */
export const checkBatchRows = (
  csv: string,
  batchReason: string | undefined,
  source: { field: 'csv' | 'upload'; maxBytes: number } = {
    field: 'csv',
    maxBytes: BATCH_LIMITS.maxCsvBytes,
  },
): CheckedRows => {
  const structural = (message: string) => new ValidationFailed([{ field: source.field, message }])
  const bytes = Buffer.byteLength(csv, 'utf8')
  if (bytes > source.maxBytes) {
    throw new ValidationFailed([
      {
        field: source.field,
        message: `${source.field === 'csv' ? 'csv' : 'the uploaded CSV'} must be at most ${source.maxBytes} bytes (${source.maxBytes / (1024 * 1024)} MiB); it is ${bytes}${source.field === 'csv' ? ': upload a larger file instead (upload)' : ''}`,
      },
    ])
  }
  let records: ReturnType<typeof parseCsv>
  try {
    records = parseCsv(csv)
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw structural(`csv ${error.message}`)
    throw error
  }
  const isBlank = (fields: string[]) => fields.every((f) => f.trim() === '')
  const [header, ...data] = records.filter((r) => !isBlank(r.fields))
  if (!header)
    throw structural('csv is empty: it needs a header row (email,amount,name,reason) and rows')
  const names = header.fields.map((f) => f.trim().toLowerCase())
  const positions = new Map<Column, number>()
  const problems: string[] = []
  names.forEach((name, i) => {
    if (name === '' && i === names.length - 1) return // a trailing comma
    if (name.startsWith(RESULT_COLUMN_PREFIX)) return
    if (!(BATCH_COLUMNS as readonly string[]).includes(name)) {
      problems.push(`unknown column ${JSON.stringify(header.fields[i])}`)
    } else if (positions.has(name as Column)) {
      problems.push(`column ${JSON.stringify(name)} appears twice`)
    } else positions.set(name as Column, i)
  })
  for (const required of ['email', 'amount'] as const) {
    if (!positions.has(required)) problems.push(`the ${required} column is missing`)
  }
  if (problems.length > 0) {
    throw structural(
      `the first row must be the header, with the columns email, amount and optionally name and reason: ${problems.join('; ')}`,
    )
  }
  if (data.length === 0) throw structural('csv has a header row but no rows')
  if (data.length > BATCH_LIMITS.maxRows) {
    throw structural(`csv has ${data.length} rows; a batch takes at most ${BATCH_LIMITS.maxRows}`)
  }

  const rows: StoredRow[] = []
  const seen = new Map<string, number>()
  let valid = 0
  let invalid = 0
  let duplicates = 0
  let amount = 0
  for (const record of data) {
    const cell = (name: Column) => {
      const at = positions.get(name)
      return at === undefined ? '' : (record.fields[at] ?? '')
    }
    const extra = record.fields.slice(names.length).filter((f) => f.trim() !== '')
    const email = cell('email')
    const name = cell('name')
    const ownReason = cell('reason')
    const amountText = cell('amount')
    const refuse = (problem: RowProblem) => {
      rows.push({
        row: record.row,
        email: kept(email),
        ...(name === '' ? {} : { name: kept(name) }),
        ...(ownReason === '' ? {} : { reason: kept(ownReason) }),
        amount: kept(amountText),
        problem,
      })
    }
    if (extra.length > 0) {
      invalid++
      refuse({
        code: 'validation_failed',
        message: `the row has ${names.length + extra.length} or more values; the header has ${names.length} columns`,
        errors: [{ field: 'csv', message: 'more values than columns' }],
      })
      continue
    }
    const reason = ownReason.trim() === '' ? batchReason : ownReason
    const parsed = GrantRequestSchema.safeParse({
      recipient: { email, ...(name.trim() === '' ? {} : { name }) },
      ...(reason === undefined ? {} : { reason }),
      amount: amountText.trim() === '' ? undefined : amountOf(amountText),
    })
    if (!parsed.success) {
      const errors = asColumns(zodIssuesToFieldErrors(parsed.error)).map((e) =>
        e.field === 'reason' && reason === undefined
          ? {
              field: 'reason',
              message: "reason is required: in the row's reason column, or the batch's reason",
            }
          : e.field === 'amount' &&
              typeof amountOf(amountText) === 'string' &&
              amountText.trim() !== ''
            ? {
                field: 'amount',
                message: `amount must be a whole number from 1 to ${LIMITS.maxAmount}`,
              }
            : e,
      )
      invalid++
      refuse({
        code: 'validation_failed',
        message: errors.map((e) => e.message).join('; '),
        errors,
      })
      continue
    }
    const grant = parsed.data
    const key = JSON.stringify([grant.recipient.email, grant.amount, grant.reason])
    const first = seen.get(key)
    if (first !== undefined) {
      duplicates++
      refuse({
        code: 'duplicate_row',
        message: `same e-mail, amount and reason as row ${first}`,
        duplicateOf: first,
      })
      continue
    }
    seen.set(key, record.row)
    valid++
    amount += grant.amount
    const rowName = grant.recipient.name || undefined
    rows.push({
      row: record.row,
      email: grant.recipient.email,
      ...(rowName === undefined ? {} : { name: rowName }),
      // The batch's reason is kept once, on the batch.
      ...(ownReason.trim() === '' ? {} : { reason: grant.reason }),
      amount: grant.amount,
    })
  }
  return { rows, valid, invalid, duplicates, amount }
}

/**
 * Problems in one dry-run answer at most. A problem is a row number, a code and messages of the
 * grant API's rules (no value of the row): well under 1 KB, so a page stays far below Lambda's
 * 6 MB response limit whatever the CSV holds.
 */
export const PREVIEW_PROBLEMS_PER_PAGE = 2_000

/** The problems of a checked CSV, as the dry run and the batch show them. */
export const rowProblems = (rows: StoredRow[]) =>
  rows
    .filter((r) => r.problem !== undefined)
    .map((r) => ({
      row: r.row,
      code: r.problem?.code,
      message: r.problem?.message,
      ...(r.problem?.errors === undefined ? {} : { errors: r.problem.errors }),
      ...(r.problem?.duplicateOf === undefined ? {} : { duplicateOf: r.problem.duplicateOf }),
    }))
