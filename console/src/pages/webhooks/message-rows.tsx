import { useId, useState } from 'preact/hooks'
import type { WebhookAttempt, WebhookMessage } from '../../api'
import { StatusBadge } from '../../ui'
import { formatNumber, Time } from '../../ui-format'
import { ConfirmButton } from '../../ui-pages'

/** The delivery log's rows: a message, and its attempts when opened. */

const ERROR_WORDS: Record<string, string> = {
  timeout: 'No answer within 15 s',
  connection: 'Connection failed',
  refused_address: 'Refused: a private or reserved address',
  redirect: 'Answered a redirect (not followed)',
  tls: 'TLS failed',
  dns: 'Host name not found',
  invalid_url: 'Invalid URL',
}
const TRIGGER_WORDS: Record<WebhookAttempt['trigger'], string> = {
  auto: 'Scheduled',
  replay: 'Replay',
  test: 'Test',
}

/** An attempt's outcome: the HTTP status, or why there was none. */
export const attemptResult = (attempt: WebhookAttempt) =>
  attempt.status !== undefined
    ? `HTTP ${attempt.status}`
    : attempt.error
      ? (ERROR_WORDS[attempt.error] ?? attempt.error)
      : 'No answer'

const attemptOk = (attempt: WebhookAttempt) =>
  attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300
const Attempts = ({ message, id }: { message: WebhookMessage; id: string }) => (
  <div id={id} class="attempts">
    {message.attempts.length === 0 ? (
      <p>No attempt yet.</p>
    ) : (
      <table>
        <caption>Attempts of message {message.messageId}, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Result</th>
            <th scope="col">Latency</th>
            <th scope="col">Started by</th>
            <th scope="col">Start of the response</th>
          </tr>
        </thead>
        <tbody>
          {message.attempts.map((attempt, i) => (
            <tr key={`${attempt.at}-${i}`}>
              <th scope="row">{i + 1}</th>
              <td>
                <Time iso={attempt.at} seconds />
              </td>
              <td class={attemptOk(attempt) ? 'text ok' : 'text failure'}>
                {attemptResult(attempt)}
              </td>
              <td class="num">{formatNumber(attempt.latencyMs)} ms</td>
              <td class="text">{TRIGGER_WORDS[attempt.trigger] ?? attempt.trigger}</td>
              <td class="text">
                {attempt.response ? (
                  <code class="response">{attempt.response}</code>
                ) : (
                  <span class="hint">None</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </div>
)

export const MessageRows = ({
  message,
  admin,
  columns,
  onReplay,
}: {
  message: WebhookMessage
  admin: boolean
  columns: number
  onReplay: (message: WebhookMessage) => Promise<unknown>
}) => {
  const [open, setOpen] = useState(false)
  const id = useId()
  const last = message.attempts[message.attempts.length - 1]
  const count = message.attempts.length
  return (
    <>
      <tr>
        <th scope="row" class="text">
          <code>{message.type}</code>
          <div class="hint">{message.messageId}</div>
        </th>
        <td>
          <StatusBadge status={message.status} />
        </td>
        <td>
          <Time iso={message.createdAt} seconds />
        </td>
        <td class="text">
          {last ? (
            <span class={attemptOk(last) ? 'ok' : 'failure'}>
              {attemptResult(last)}, {formatNumber(last.latencyMs)} ms
            </span>
          ) : (
            'None yet'
          )}
        </td>
        <td>
          {message.status === 'pending' && message.nextAttemptAt ? (
            <Time iso={message.nextAttemptAt} seconds />
          ) : (
            '—'
          )}
        </td>
        <td>
          <span class="row-actions">
            <button
              type="button"
              aria-expanded={open}
              aria-controls={id}
              aria-label={`Attempts (${count}) of message ${message.messageId}`}
              onClick={() => setOpen(!open)}
            >
              Attempts ({count})
            </button>
            {admin ? (
              <ConfirmButton
                label="Replay"
                buttonLabel={`Replay message ${message.messageId}`}
                title={`Replay message ${message.messageId}?`}
                confirmLabel="Replay message"
                onConfirm={() => onReplay(message)}
              >
                <p>
                  The same message (its <code>webhook-id</code> and body) is sent once more now,
                  signed afresh, whatever its status.
                </p>
              </ConfirmButton>
            ) : null}
          </span>
        </td>
      </tr>
      {open ? (
        <tr class="expanded">
          <td colSpan={columns}>
            <Attempts message={message} id={id} />
          </td>
        </tr>
      ) : null}
    </>
  )
}
