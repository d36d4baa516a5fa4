/**
 * useApi: a view's data from one GET, with the last good answer kept while a refresh or the
 * next page loads (so a table never flashes empty), the error kept beside it, the request aborted when the view
 * goes away or asks for another path, and optional polling that waits for each answer before
 * scheduling the next (a slow server is never asked twice at once).
 */
import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError, api } from './api/client.js'

export interface ApiState<T> {
  readonly data: T | undefined
  readonly error: ApiError | Error | undefined
  readonly loading: boolean
  reload(): void
}

export function useApi<T>(path: string | null, options: { pollMs?: number } = {}): ApiState<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<ApiError | Error | undefined>(undefined)
  const [loading, setLoading] = useState(path !== null)
  const [tick, setTick] = useState(0)

  // A view that shows another resource is mounted afresh (view-outlet.tsx keys views by their
  // URL path), so a path change here is a new page or search of the same list: the old rows
  // stay until the new ones arrive, instead of the table flashing empty at every keystroke.
  useEffect(() => {
    if (path === null) return
    const abort = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const load = async (): Promise<void> => {
      setLoading(true)
      try {
        const d = await api<T>(path, { signal: abort.signal })
        if (abort.signal.aborted) return
        setData(d)
        setError(undefined)
      } catch (err) {
        if (abort.signal.aborted) return
        setError(err as Error)
      } finally {
        if (!abort.signal.aborted) {
          setLoading(false)
          if (options.pollMs !== undefined) timer = setTimeout(() => void load(), options.pollMs)
        }
      }
    }
    void load()
    return () => {
      abort.abort()
      if (timer !== undefined) clearTimeout(timer)
    }
  }, [path, tick, options.pollMs])

  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data, error, loading, reload }
}

/** Runs a write action, tracking busy and error for the form that started it. */
export function useAction(): {
  busy: boolean
  error: Error | undefined
  run: <T>(f: () => Promise<T>) => Promise<T | undefined>
  clear: () => void
} {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | undefined>(undefined)
  const run = useCallback(async <T>(f: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await f()
    } catch (err) {
      setError(err as Error)
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, run, clear: () => setError(undefined) }
}

export { ApiError }
