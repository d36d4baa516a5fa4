/**
 * Asks for the console's access token when the server requires one (or answered 401). The token
 * is kept in sessionStorage and sent as `Authorization: Bearer` on every API call; it is checked
 * right away against /api/cluster so a wrong one is reported here, not on the next view.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api, setToken } from './api/client.js'
import { ErrorBox } from './components/states.js'

export function TokenForm(props: { onDone: () => void }) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<Error | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  // The form is all there is on the page until a token is given: put the cursor in it.
  useEffect(() => input.current?.focus(), [])
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    setBusy(true)
    setToken(value.trim())
    try {
      await api('/api/cluster')
      props.onDone()
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setToken(null)
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="card narrow">
      <h1>Access token</h1>
      <p>
        This console requires a token. Ask whoever runs it for the value given to <code>--token</code>.
      </p>
      <form onSubmit={(e) => void submit(e)}>
        <label>
          Token
          <input
            type="password"
            autoComplete="current-password"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            ref={input}
            required
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      {error !== undefined && <ErrorBox error={error} />}
    </section>
  )
}
