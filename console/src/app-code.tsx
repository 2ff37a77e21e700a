import { useEffect, useRef, useState } from 'preact/hooks'
import { appCode, explainAppCodeError } from './cognito'
import { FormEnd, TextField, useAction } from './ui-forms'

/**
 * The form for a code of an authenticator app: the sign-in step and the account page's first
 * code. Six digits (a space in the middle allowed, hence 7). A wrong code is said next to the
 * field, which is emptied and focused for the next try; a sign-in left too long goes back to the
 * password through `onRestart`.
 */
export const AppCodeForm = (props: {
  label: string
  hint: string
  /** What to say when the field holds no code. */
  missing: string
  submitLabel: string
  focus?: boolean
  onCode: (digits: string) => Promise<void>
  onCancel: () => void
  onRestart?: (message: string) => void
}) => {
  const [code, setCode] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (props.focus) input.current?.focus()
  }, [])
  const { busy, errors, error, run } = useAction((e) => {
    const { field, message, restart } = explainAppCodeError(e)
    if (restart && props.onRestart) props.onRestart(message)
    else if (field) {
      setCode('')
      input.current?.focus()
      return { fields: { [field]: message } }
    }
    return { message }
  })

  const submit = (event: Event) => {
    event.preventDefault()
    const digits = appCode(code)
    if (!digits) input.current?.focus()
    void run(() => props.onCode(digits as string), digits ? {} : { code: props.missing })
  }

  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label={props.label}
        hint={props.hint}
        error={errors.code}
        value={code}
        onValue={setCode}
        inputRef={input}
        inputMode="numeric"
        autocomplete="one-time-code"
        maxLength={7}
        required
      />
      <FormEnd error={error} busy={busy} label={props.submitLabel}>
        <button type="button" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </FormEnd>
    </form>
  )
}
