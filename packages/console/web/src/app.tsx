/**
 * The page's frame: the session from the server (read-only, token, Connect), the token form
 * when one is needed, the navigation, the theme toggle and shortcuts, and the current view.
 * A render error in a view is caught here and shown with the way back, never a blank page.
 */
import { Fragment } from 'preact'
import { useEffect, useErrorBoundary, useState } from 'preact/hooks'
import { ApiError, api, onUnauthorized, setToken } from './api/client.js'
import type { Session } from './api/types.js'
import { Dialog } from './components/dialog.js'
import { ErrorBox, Loading } from './components/states.js'
import { GO_KEYS, installShortcuts } from './keyboard.js'
import { navigate, useLocation } from './router.js'
import { FALLBACK_SESSION, SessionContext } from './session.js'
import { currentTheme, toggleTheme } from './theme.js'
import { TokenForm } from './token-form.js'
import { ViewOutlet } from './view-outlet.js'

const NAV: ReadonlyArray<{ path: string; label: string; key: string }> = [
  { path: '/', label: 'Overview', key: 'o' },
  { path: '/topics', label: 'Topics', key: 't' },
  { path: '/groups', label: 'Consumer groups', key: 'g' },
  { path: '/brokers', label: 'Brokers', key: 'b' },
  { path: '/connectors', label: 'Connectors', key: 'c' },
  { path: '/streams', label: 'Streams', key: 's' },
]

function useSessionFromServer(): {
  session: Session | undefined
  error: Error | undefined
  needToken: boolean
  retry: () => void
  tokenGiven: () => void
} {
  const [session, setSession] = useState<Session | undefined>(undefined)
  const [error, setError] = useState<Error | undefined>(undefined)
  const [needToken, setNeedToken] = useState(false)
  const [tick, setTick] = useState(0)
  useEffect(() => onUnauthorized(() => setNeedToken(true)), [])
  useEffect(() => {
    let live = true
    api<Session>('/api/session')
      .then((s) => {
        if (!live) return
        setSession(s)
        setError(undefined)
        if (s.tokenRequired && sessionStorage.getItem('sluice-console-token') === null) setNeedToken(true)
      })
      .catch((err: unknown) => {
        if (!live) return
        // An older server without /api/session: carry on with defaults (writes allowed); one
        // that wants the token even for that (401) gets it asked for.
        if (err instanceof ApiError && err.status === 404) setSession(FALLBACK_SESSION)
        else if (err instanceof ApiError && err.status === 401) {
          setSession({ ...FALLBACK_SESSION, tokenRequired: true })
          setNeedToken(true)
        } else setError(err as Error)
      })
    return () => {
      live = false
    }
  }, [tick])
  return {
    session,
    error,
    needToken,
    retry: () => setTick((t) => t + 1),
    tokenGiven: () => {
      setNeedToken(false)
      setTick((t) => t + 1)
    },
  }
}

function ViewBoundary() {
  const [err, reset] = useErrorBoundary()
  const loc = useLocation()
  // Leaving the broken view clears the error, so navigation always works.
  useEffect(() => {
    if (err !== undefined) reset()
  }, [loc.view, JSON.stringify(loc.params)])
  if (err !== undefined)
    return <ErrorBox error={err instanceof Error ? err : new Error(String(err))} retry={reset} what="this view" />
  return <ViewOutlet match={loc} />
}

function ShortcutHelp(props: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={props.onClose}>
      <dl class="shortcuts">
        <dt>
          <kbd>/</kbd>
        </dt>
        <dd>focus the search or filter box</dd>
        {Object.entries(GO_KEYS).map(([k, v]) => (
          <Fragment key={k}>
            <dt>
              <kbd>g</kbd> <kbd>{k}</kbd>
            </dt>
            <dd>{v.label}</dd>
          </Fragment>
        ))}
        <dt>
          <kbd>?</kbd>
        </dt>
        <dd>this list</dd>
        <dt>
          <kbd>Esc</kbd>
        </dt>
        <dd>close a dialog</dd>
      </dl>
    </Dialog>
  )
}

export function App() {
  const { session, error, needToken, retry, tokenGiven } = useSessionFromServer()
  const loc = useLocation()
  const [theme, setTheme] = useState(currentTheme())
  const [help, setHelp] = useState(false)
  useEffect(() => installShortcuts(() => setHelp(true)), [])
  const section = `/${(location.pathname.split('/')[1] ?? '').trim()}`

  return (
    <SessionContext.Provider value={session ?? FALLBACK_SESSION}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Sluice <span>console</span>
        </a>
        {session?.readOnly === true && (
          <span class="badge warn" title="the server refuses every change">
            read-only
          </span>
        )}
        <span class="spacer" />
        {session?.version !== undefined && session.version !== '' && <span class="muted">v{session.version}</span>}
        <button type="button" class="link" onClick={() => setHelp(true)} title="keyboard shortcuts (?)">
          Shortcuts
        </button>
        <button
          type="button"
          class="link"
          aria-label={`switch to ${theme === 'dark' ? 'light' : 'dark'} mode`}
          onClick={() => setTheme(toggleTheme())}
        >
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
        {session?.tokenRequired === true && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setToken(null)
              retry()
              navigate('/')
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <div class="layout">
        <nav class="side" aria-label="views">
          {NAV.map((n) => (
            <a
              key={n.path}
              href={n.path}
              aria-current={(n.path === '/' ? loc.view === 'overview' : section === n.path) ? 'page' : undefined}
              title={`g ${n.key}`}
            >
              {n.label}
            </a>
          ))}
        </nav>
        <main id="main" tabIndex={-1}>
          {error !== undefined ? (
            <ErrorBox error={error} retry={retry} />
          ) : session === undefined ? (
            <Loading what="session" />
          ) : needToken ? (
            <TokenForm onDone={tokenGiven} />
          ) : (
            <ViewBoundary />
          )}
        </main>
      </div>
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
    </SessionContext.Provider>
  )
}
