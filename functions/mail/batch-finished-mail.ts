import type { BatchRecord } from '../domain/batch'
import type { OutgoingMail } from './mailer'

/**
 * The e-mail to whoever committed a batch, once it finished: what became of its rows and where to
 * see them. Plain text only: nothing in it comes from recipients (no addresses, names or reasons),
 * only counts and the batch's own ids.
 */
export const batchFinishedMail = (
  batch: BatchRecord,
  consoleUrl: string | undefined,
): OutgoingMail => {
  const canceled = batch.canceled ?? 0
  const outcome = batch.status === 'canceled' ? 'was canceled' : 'is done'
  const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}`
  const lines = [
    `Your send-to-many batch ${batch.batchId} (${batch.mode}) ${outcome}.`,
    '',
    `${count(batch.total, batch.total === 1 ? 'row' : 'rows')} in all:`,
    `- ${count(batch.granted, 'granted')}`,
    `- ${count(batch.failed, 'failed')} (refused rows and grants the program refused)`,
    ...(canceled > 0
      ? [`- ${count(canceled, 'not granted: canceled before they were tried')}`]
      : []),
    '',
    ...(consoleUrl === undefined
      ? [`Program ${batch.program}.`]
      : [
          `See each row: ${consoleUrl.replace(/\/+$/, '')}/programs/${encodeURIComponent(batch.program)}`,
        ]),
  ]
  return {
    to: batch.createdBy.email,
    subject:
      batch.status === 'canceled'
        ? `Batch canceled: ${batch.granted.toLocaleString('en-US')} of ${batch.total.toLocaleString('en-US')} rows granted`
        : `Batch done: ${batch.granted.toLocaleString('en-US')} of ${batch.total.toLocaleString('en-US')} rows granted`,
    text: lines.join('\n'),
  }
}
