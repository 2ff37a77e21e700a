import { ApiError, SignedOut } from './api'

/** How the pages write numbers, times and errors for the person. */

const numberFormat = new Intl.NumberFormat('en-US')
export const formatNumber = (value: number) => numberFormat.format(value)

/** A number as typed (`1,000`, `1_000`, `1 000`): its digits, for a rule and a body. */
export const digitsOf = (typed: string) => typed.trim().replace(/[,_ ]/g, '')

const pad = (n: number) => String(n).padStart(2, '0')
/**
 * `2026-11-25 22:19` in the reader's time zone (`22:19:05` with `seconds`, where a few seconds
 * matter: a delivery's attempts); the full ISO time is in the element's title.
 */
export const formatTime = (iso: string | null | undefined, seconds = false) => {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ''}`
}

export const Time = ({ iso, seconds }: { iso: string | null | undefined; seconds?: boolean }) =>
  iso ? (
    <time dateTime={iso} title={iso}>
      {formatTime(iso, seconds)}
    </time>
  ) : null

/** The error's message for the person; the request id when the service gave one. */
export const errorText = (error: unknown) => {
  if (error instanceof ApiError) {
    return error.requestId ? `${error.message} (request ${error.requestId})` : error.message
  }
  if (error instanceof SignedOut) return 'You are signed out.'
  return error instanceof Error ? error.message : String(error)
}
