import { useState } from 'preact/hooks'
import type { CsvPage } from './api'
import { saveText } from './save-file'
import { Alert, Status } from './ui'

/**
 * Every page of a CSV export, in order, saved as one file (the header row comes on the first page
 * only, so the pages append). Answers the number of records, the header left out.
 */
export const downloadCsvPages = async (
  page: (cursor: string | undefined) => Promise<CsvPage>,
  filename: string,
) => {
  let cursor: string | undefined
  let csv = ''
  do {
    const answer = await page(cursor)
    csv += answer.csv
    cursor = answer.next ?? undefined
  } while (cursor)
  saveText(csv, filename)
  return Math.max(0, csv.split('\r\n').filter(Boolean).length - 1)
}

/**
 * A button that saves an export, with what it came to (or why not) next to it. `download` runs the
 * export and answers how many records it saved; `done` says it in words.
 */
export const CsvDownloadButton = ({
  label,
  download,
  done,
}: {
  label: string
  download: () => Promise<number>
  done: (records: number) => string
}) => {
  const [state, setState] = useState<{ busy?: boolean; text?: string; error?: string }>({})
  return (
    <>
      <button
        type="button"
        disabled={state.busy}
        onClick={async () => {
          setState({ busy: true, text: 'Exporting…' })
          try {
            setState({ text: done(await download()) })
          } catch (e) {
            setState({ error: (e as Error).message })
          }
        }}
      >
        {label}
      </button>
      {state.text ? <Status>{state.text}</Status> : null}
      <Alert>{state.error}</Alert>
    </>
  )
}
