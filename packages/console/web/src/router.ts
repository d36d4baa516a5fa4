/**
 * A small history router: every view has its own URL (the server answers every non-/api path
 * with index.html), links are ordinary <a href> so they open in a new tab too, and a click on
 * one is turned into pushState here. Routes are matched in order; `:name` segments are decoded.
 */
import { useEffect, useState } from 'preact/hooks'

export interface Match {
  readonly view: string
  readonly params: Record<string, string>
  readonly search: URLSearchParams
}

type Pattern = readonly [view: string, path: string]

export const ROUTES: readonly Pattern[] = [
  ['overview', '/'],
  ['topics', '/topics'],
  ['topic', '/topics/:name'],
  ['messages', '/topics/:name/messages'],
  ['groups', '/groups'],
  ['group', '/groups/:id'],
  ['brokers', '/brokers'],
  ['broker', '/brokers/:id'],
  ['connectors', '/connectors'],
  ['connector', '/connectors/:name'],
  ['streams', '/streams'],
  ['stream', '/streams/:app'],
]

export function match(pathname: string, search: string): Match {
  const parts = pathname
    .replace(/\/+$/, '')
    .split('/')
    .filter((p) => p !== '')
  for (const [view, path] of ROUTES) {
    const want = path.split('/').filter((p) => p !== '')
    if (want.length !== parts.length) continue
    const params: Record<string, string> = {}
    const ok = want.every((w, i) => {
      const got = parts[i]!
      if (w.startsWith(':')) {
        try {
          params[w.slice(1)] = decodeURIComponent(got)
        } catch {
          return false
        }
        return true
      }
      return w === got
    })
    if (ok) return { view, params, search: new URLSearchParams(search) }
  }
  return { view: 'not-found', params: {}, search: new URLSearchParams(search) }
}

const listeners = new Set<() => void>()
const notify = (): void => {
  for (const f of listeners) f()
}
window.addEventListener('popstate', notify)

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return
  if (options.replace === true) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  notify()
  window.scrollTo(0, 0)
}

/** Replaces only the query string (filters, page numbers) without a new history entry each keystroke. */
export function setSearch(params: Record<string, string | number | undefined | null>): void {
  const q = new URLSearchParams(location.search)
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') q.delete(k)
    else q.set(k, String(v))
  }
  const s = q.toString()
  navigate(location.pathname + (s === '' ? '' : `?${s}`), { replace: true })
}

export function useLocation(): Match {
  const [, setTick] = useState(0)
  useEffect(() => {
    const f = (): void => setTick((t) => t + 1)
    listeners.add(f)
    return () => {
      listeners.delete(f)
    }
  }, [])
  return match(location.pathname, location.search)
}

/** Same-origin plain left clicks on links become history navigation; others behave normally. */
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
  const a = (e.target as Element | null)?.closest?.('a')
  if (a === null || a === undefined || a.target !== '' || a.hasAttribute('download')) return
  const url = new URL(a.href, location.href)
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return
  e.preventDefault()
  navigate(url.pathname + url.search)
})

export const href = {
  topic: (name: string): string => `/topics/${encodeURIComponent(name)}`,
  messages: (name: string): string => `/topics/${encodeURIComponent(name)}/messages`,
  group: (id: string): string => `/groups/${encodeURIComponent(id)}`,
  broker: (id: number): string => `/brokers/${id}`,
  connector: (name: string): string => `/connectors/${encodeURIComponent(name)}`,
  stream: (app: string): string => `/streams/${encodeURIComponent(app)}`,
}
