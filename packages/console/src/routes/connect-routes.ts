/**
 * /api/connect/**: the connectors pages, proxied over plain HTTP to the Kafka-Connect-compatible
 * REST API of a Sluice Connect worker (docs/connect.md) given with `--connect-url`. The console
 * never imports @sluice/connect: the worker is its own process. Only the routes below are
 * forwarded (an allow-list, so the console cannot be used to reach anything else on the worker
 * or its network), each declared as a change or not, so read-only mode and the token apply to
 * them like to every other route. The worker's own errors keep their HTTP status and arrive in
 * the console's error shape (`error_code: "CONNECT_ERROR"`, the worker's message); an
 * unreachable worker is a 502. Without a Connect URL every route answers 404
 * CONNECT_NOT_CONFIGURED.
 */
import { ConsoleError, badRequest, errorBody } from '../errors.js'
import type { JsonAnswer, Route, RouteRequest } from '../http/route.js'

const PROXY_TIMEOUT_MS = 30_000

/** A Connect REST base URL: http(s) only, without credentials, query or fragment. */
export function parseConnectUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new TypeError(`the Connect URL "${text}" is not a URL (expected e.g. http://127.0.0.1:8083)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`the Connect URL must be http or https, got ${url.protocol}`)
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw new TypeError('the Connect URL must have no credentials, query or fragment')
  return url
}

interface Forward {
  readonly method: Route['method']
  /** The console path under /api/connect. */
  readonly path: string
  readonly mutates: boolean
  /** The worker's method and path for a request (params already URI-decoded). */
  readonly upstream?: (p: Readonly<Record<string, string>>) => string
  /** Query parameters passed on (the rest are dropped). */
  readonly query?: readonly string[]
}

const enc = encodeURIComponent
const FORWARDS: readonly Forward[] = [
  { method: 'GET', path: '', mutates: false, upstream: () => '/' },
  { method: 'GET', path: '/connectors', mutates: false, query: ['expand'] },
  { method: 'POST', path: '/connectors', mutates: true },
  { method: 'GET', path: '/connectors/:name/status', mutates: false },
  { method: 'GET', path: '/connectors/:name/config', mutates: false },
  { method: 'PUT', path: '/connectors/:name/config', mutates: true },
  { method: 'GET', path: '/connectors/:name/tasks', mutates: false },
  { method: 'PUT', path: '/connectors/:name/pause', mutates: true },
  { method: 'PUT', path: '/connectors/:name/resume', mutates: true },
  { method: 'PUT', path: '/connectors/:name/stop', mutates: true },
  { method: 'POST', path: '/connectors/:name/restart', mutates: true, query: ['includeTasks', 'onlyFailed'] },
  { method: 'POST', path: '/connectors/:name/tasks/:task/restart', mutates: true },
  { method: 'DELETE', path: '/connectors/:name', mutates: true },
  { method: 'GET', path: '/connectors/:name/offsets', mutates: false },
  { method: 'GET', path: '/connector-plugins', mutates: false },
]

/** The worker path of a console path pattern, with each `:param` filled in and encoded. */
function upstreamPath(pattern: string, params: Readonly<Record<string, string>>): string {
  return pattern.replace(/:([a-z]+)/g, (_m, name: string) => enc(params[name] ?? ''))
}

async function callWorker(
  base: URL,
  method: string,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<JsonAnswer> {
  const target = new URL(base.pathname.replace(/\/$/, '') + path, base)
  let res: Response
  try {
    res = await fetch(target, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(PROXY_TIMEOUT_MS)]),
      redirect: 'manual',
    })
  } catch (err) {
    return {
      status: 502,
      body: errorBody(
        'CONNECT_UNAVAILABLE',
        `the Connect worker at ${base.origin} did not answer: ${(err as Error).message}`,
      ),
    }
  }
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown)
  } catch {
    parsed = { text }
  }
  if (res.status >= 400) {
    const message =
      parsed !== null && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string'
        ? (parsed as { message: string }).message
        : `the Connect worker answered ${res.status}`
    return { status: res.status, body: errorBody('CONNECT_ERROR', message) }
  }
  // 202/204 carry no body worth keeping for the page; it re-reads the status.
  return { status: res.status === 204 ? 200 : res.status, body: parsed ?? { ok: true } }
}

function queryOf(r: RouteRequest, names: readonly string[] | undefined): string {
  const out = new URLSearchParams()
  for (const n of names ?? []) for (const v of r.query.getAll(n)) out.append(n, v)
  const s = out.toString()
  return s === '' ? '' : `?${s}`
}

export function connectRoutes(base: URL | undefined): Route[] {
  const notConfigured = (): never => {
    throw new ConsoleError(
      'CONNECT_NOT_CONFIGURED',
      'no Connect worker is configured: start the console with --connect-url http://<worker>:8083',
    )
  }
  const forwarded: Route[] = FORWARDS.map((f) => ({
    method: f.method,
    path: `/api/connect${f.path}`,
    mutates: f.mutates,
    handle: async (r) => {
      if (base === undefined) return notConfigured()
      if (f.method !== 'GET' && f.method !== 'DELETE' && f.path.endsWith('/config')) {
        if (r.body === null || typeof r.body !== 'object' || Array.isArray(r.body))
          throw badRequest('the connector config must be a JSON object')
      }
      const path = f.upstream?.(r.params) ?? upstreamPath(f.path, r.params)
      return await callWorker(base, f.method, path + queryOf(r, f.query), r.body, r.signal)
    },
  }))
  // One connector's page: its status and config together (two calls to the worker).
  const detail: Route = {
    method: 'GET',
    path: '/api/connect/connectors/:name',
    mutates: false,
    handle: async (r) => {
      if (base === undefined) return notConfigured()
      const name = enc(r.params.name!)
      const [info, status] = await Promise.all([
        callWorker(base, 'GET', `/connectors/${name}`, undefined, r.signal),
        callWorker(base, 'GET', `/connectors/${name}/status`, undefined, r.signal),
      ])
      if (info.status >= 400) return info
      if (status.status >= 400) return status
      return { status: 200, body: { ...(info.body as object), status: status.body } }
    },
  }
  return [...forwarded, detail]
}
