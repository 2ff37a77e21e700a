import { useEffect, useMemo, useState } from 'preact/hooks'
import type { Program } from '../api'
import { CsvDownloadButton, downloadCsvPages } from '../csv-download'
import { figuresApi, type Holder, type HoldersPage } from '../figures-api'
import { percentText } from '../figures-shape'
import { useScope } from '../scope'
import { Alert, DataTable } from '../ui'
import { errorText, formatNumber } from '../ui-format'

const PAGE = 25

/** A value with its currency: "12.50 EUR"; nothing when no value is set. */
const valueText = (value: string | null, currency: string | null) =>
  value === null ? '' : currency ? `${value} ${currency}` : value

/**
 * The program's holders, most accepted shares first as the API sorts them: a page at a time,
 * "More" adding the next page under the ones shown, and the whole list as a CSV file.
 */
export const ProgramHolders = ({ program }: { program: Program }) => {
  const scope = useScope()
  const figures = useMemo(
    () => figuresApi(scope.issuerId, program.id),
    [scope.issuerId, program.id],
  )
  const [items, setItems] = useState<Holder[]>([])
  const [last, setLast] = useState<HoldersPage>()
  const [busy, setBusy] = useState(true)
  const [error, setError] = useState('')

  const load = async (cursor: string | undefined, before: Holder[]) => {
    setBusy(true)
    try {
      const page = await figures.holders({ limit: PAGE, cursor })
      setItems([...before, ...page.data])
      setLast(page)
      setError('')
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    setItems([])
    setLast(undefined)
    void load(undefined, [])
  }, [figures])

  const currency = last?.tokenValueCurrency ?? null
  return (
    <section aria-labelledby="holders">
      <h2 id="holders">Holders</h2>
      <div class="toolbar">
        <p class="hint">
          {last?.tokenValue
            ? `Values at ${last.tokenValue} ${currency ?? ''} a share.`
            : 'No value per share is set: holders are shown without a value.'}
        </p>
        <CsvDownloadButton
          label="Export holders as CSV"
          download={() => downloadCsvPages(figures.holdersCsv, `holders-${program.id}.csv`)}
          done={(rows) =>
            `Exported ${formatNumber(rows)} ${rows === 1 ? 'holder' : 'holders'} as CSV.`
          }
        />
      </div>
      <Alert>{error}</Alert>
      <DataTable
        caption="Holders, most accepted shares first"
        columns={['Recipient', 'Accepted shares', 'Pending shares', 'Share of pool', 'Value']}
      >
        {items.map((holder) => (
          <tr key={holder.email}>
            <td class="text">{holder.email}</td>
            <td class="num">{formatNumber(holder.accepted)}</td>
            <td class="num">{formatNumber(holder.pending)}</td>
            <td class="num">{percentText(holder.shareOfPool)}</td>
            <td class="num">{valueText(holder.value, currency)}</td>
          </tr>
        ))}
      </DataTable>
      {busy && items.length === 0 ? <p role="status">Loading holders…</p> : null}
      {!busy && last && items.length === 0 ? <p>No one holds or is offered shares yet.</p> : null}
      {last?.nextCursor ? (
        <p class="actions">
          <button
            type="button"
            disabled={busy}
            onClick={() => last.nextCursor && load(last.nextCursor, items)}
          >
            More holders
          </button>{' '}
          <span class="hint">{formatNumber(items.length)} shown</span>
        </p>
      ) : null}
    </section>
  )
}
