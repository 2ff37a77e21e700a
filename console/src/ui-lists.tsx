import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

/** The pages' lists: a table of records, and paging through cursors (re-exported by ui.tsx). */

/**
 * A table of a page's records: its caption (what it lists, in what order), its column headers
 * (a false one is left out: a column only some roles see), its rows as children.
 */
export const DataTable = ({
  caption,
  columns,
  children,
}: {
  caption: ComponentChildren
  columns: readonly (string | false)[]
  children: ComponentChildren
}) => (
  <div class="table-box">
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) =>
            column === false ? null : (
              <th key={column} scope="col">
                {column}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
)

/** Paging through cursors: the cursors of the pages before this one, to go back. */
export const usePager = () => {
  const [stack, setStack] = useState<(string | undefined)[]>([])
  const [cursor, setCursor] = useState<string | undefined>()
  return {
    cursor,
    page: stack.length + 1,
    next: (nextCursor: string) => {
      setStack([...stack, cursor])
      setCursor(nextCursor)
    },
    previous: () => {
      const copy = [...stack]
      const before = copy.pop()
      setStack(copy)
      setCursor(before)
    },
    reset: () => {
      setStack([])
      setCursor(undefined)
    },
    hasPrevious: stack.length > 0,
  }
}

export const Pager = ({
  label,
  pager,
  nextCursor,
}: {
  label: string
  pager: ReturnType<typeof usePager>
  nextCursor: string | null | undefined
}) =>
  pager.hasPrevious || nextCursor ? (
    <nav class="pager" aria-label={label}>
      <button type="button" onClick={pager.previous} disabled={!pager.hasPrevious}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button
        type="button"
        onClick={() => nextCursor && pager.next(nextCursor)}
        disabled={!nextCursor}
      >
        Next page
      </button>
    </nav>
  ) : null
