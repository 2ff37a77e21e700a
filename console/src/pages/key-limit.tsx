import { useState } from 'preact/hooks'
import { DEFAULT_RATE_LIMITS } from '../../../functions/domain/rate-limit'
import type { ApiKey } from '../api'
import { useScope } from '../scope'
import { ConfirmDialog } from '../ui'
import { TextField, useAction } from '../ui-forms'

/**
 * A key's rate limit on the API keys page (issue 33): the limit and whether it is the mode's
 * default, for everyone; owners and admins lower it, or set it back to the default, in a dialog.
 * The upper bound is the service's rule (the mode's default or the key's limit now, whichever is
 * higher): its 400 is shown next to the field.
 */

/** The limit as the keys table shows it: `25 a second`, and "default" under it when it is. */
export const KeyLimit = ({ apiKey }: { apiKey: ApiKey }) => (
  <>
    {apiKey.rateLimit}/s
    <div class="hint">{apiKey.rateLimitIsDefault ? 'default' : 'own limit'}</div>
  </>
)

/** The dialog that changes `apiKey`'s limit, mounted for one key while it is open. */
export const KeyLimitDialog = ({
  apiKey,
  masked,
  onClose,
  onSaved,
}: {
  apiKey: ApiKey
  masked: string
  onClose: () => void
  onSaved: (key: ApiKey) => void
}) => {
  const { api } = useScope()
  const [value, setValue] = useState(apiKey.rateLimitIsDefault ? '' : String(apiKey.rateLimit))
  const { busy, errors, error, run } = useAction()
  const fallback = DEFAULT_RATE_LIMITS[apiKey.mode]
  const most = Math.max(fallback, apiKey.rateLimit)
  const typed = value.trim()
  const save = () =>
    run(
      async () => onSaved(await api.setKeyLimit(apiKey.id, typed === '' ? null : Number(typed))),
      /^\d+$/.test(typed) || typed === ''
        ? {}
        : {
            rateLimit: `Enter a whole number of requests a second, such as 10, or leave it empty for the default (${fallback}).`,
          },
    )
  return (
    <ConfirmDialog
      open
      title={`Rate limit of key ${masked}`}
      confirmLabel="Save the limit"
      busy={busy}
      error={error}
      onConfirm={() => void save()}
      onClose={onClose}
    >
      <p>
        Now {apiKey.rateLimit} requests a second
        {apiKey.rateLimitIsDefault ? `, the ${apiKey.mode} default` : ''}. Requests over it are
        refused with <code>429 rate_limited</code> and a <code>Retry-After</code>; the change
        applies within 1.5 seconds.
      </p>
      <TextField
        label="Requests a second"
        inputMode="numeric"
        autocomplete="off"
        hint={`1 to ${most}; empty: the ${apiKey.mode} default (${fallback}). Only the operator can raise a key above that.`}
        error={errors.rateLimit}
        value={value}
        onValue={setValue}
      />
    </ConfirmDialog>
  )
}
