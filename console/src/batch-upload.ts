import { ApiError, type BatchUpload } from './api'

/**
 * Sending a CSV to the upload bucket (send to many): S3's browser-based upload, the presigned
 * POST's fields first and the file last, straight from the browser to the bucket (the console's
 * CSP names its endpoint; its CORS rule names the console's origin). Only the send-to-many page
 * imports this file, so it loads with that page.
 */

/** What the page checks before asking for an upload: the bucket would refuse the rest anyway. */
export const fileProblem = (file: File, maxBytes: number): string | undefined => {
  const csvName = /\.(csv|txt)$/i.test(file.name)
  const csvType = ['', 'text/csv', 'text/plain', 'application/vnd.ms-excel'].includes(file.type)
  if (!csvName || !csvType) {
    return `${file.name} is not a CSV file: choose a .csv file (in a spreadsheet: Save as, CSV UTF-8).`
  }
  if (file.size === 0) return `${file.name} is empty.`
  if (file.size > maxBytes) {
    return `${file.name} is ${megabytes(file.size)} (${file.size.toLocaleString('en')} bytes); a batch's file can be at most ${megabytes(maxBytes)} (${maxBytes.toLocaleString('en')} bytes). Split it into several batches.`
  }
  return undefined
}

export const megabytes = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`

/** S3's XML error, as a sentence: what the bucket said, and why it matters here. */
const refusal = (status: number, xml: string) => {
  const code = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1] ?? ''
  const said = /<Message>([^<]*)<\/Message>/.exec(xml)?.[1] ?? ''
  const why =
    code === 'EntityTooLarge'
      ? 'the file is larger than the upload allows'
      : code === 'EntityTooSmall'
        ? 'the file is empty'
        : /expired/i.test(said)
          ? 'the upload link expired: check the CSV again'
          : 'the upload was refused'
  return `The file could not be uploaded: ${why} (${status}${code ? ` ${code}` : ''}${said ? `: ${said}` : ''}).`
}

/**
 * POSTs `file` with the upload's fields; resolves once the bucket has it (204). Refusals and
 * network failures are ApiErrors on the `csv` field (the file field), so the page shows them there.
 */
export const sendFile = (
  upload: BatchUpload,
  file: File,
  onProgress?: (sent: number, total: number) => void,
) =>
  new Promise<void>((resolve, reject) => {
    const form = new FormData()
    for (const [name, value] of Object.entries(upload.fields)) form.append(name, value)
    // Last: S3 ignores every field after the file.
    form.append('file', file, file.name)
    // XMLHttpRequest rather than fetch: it reports the upload's progress (32 MB take a while).
    const xhr = new XMLHttpRequest()
    xhr.open('POST', upload.url)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total)
    }
    const fail = (message: string, status = xhr.status) =>
      reject(new ApiError(status, 'upload_refused', message, [{ field: 'csv', message }]))
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve()
      else fail(refusal(xhr.status, xhr.responseText))
    }
    xhr.onerror = () =>
      fail('The file could not be uploaded: the upload service could not be reached.', 0)
    xhr.send(form)
  })
