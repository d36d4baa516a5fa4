/**
 * The page's one way to the console API: every call goes through `api()`, which adds the access
 * token (kept in sessionStorage, so it lives as long as the tab) and turns the API's error shape
 * `{error_code, message}` into an ApiError the views show in place. A 404 with no JSON body, or
 * with NOT_FOUND on a route the server does not have yet, is `unavailable`, so a view can say
 * "this server does not offer X" instead of failing.
 */

const TOKEN_KEY = 'sluice-console-token'

/** 404 codes that mean "this server does not offer that", not "that thing does not exist". */
const UNAVAILABLE_CODES = new Set(['ROUTE_NOT_FOUND', 'NO_JSON', 'CONNECT_NOT_CONFIGURED'])

export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
  /** The route itself is missing (an older server), or Connect is not configured. */
  get unavailable(): boolean {
    return this.status === 404 && UNAVAILABLE_CODES.has(this.code)
  }
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY)
}

export function setToken(token: string | null): void {
  if (token === null || token === '') sessionStorage.removeItem(TOKEN_KEY)
  else sessionStorage.setItem(TOKEN_KEY, token)
}

/** Listeners told when the server answers 401, so the shell can ask for a token again. */
const unauthorizedListeners = new Set<() => void>()
export function onUnauthorized(f: () => void): () => void {
  unauthorizedListeners.add(f)
  return () => unauthorizedListeners.delete(f)
}

export function authHeaders(): Record<string, string> {
  const token = getToken()
  return token === null ? {} : { authorization: `Bearer ${token}` }
}

export interface ApiOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly body?: unknown
  readonly signal?: AbortSignal
}

/**
 * Code and message of an API error body: `{error_code, message}`, or the same nested as
 * `{error: {code, message}}`; undefined when the body is neither.
 */
export function errorFields(text: string): { code: string; message: string } | undefined {
  try {
    const j = JSON.parse(text) as {
      error_code?: unknown
      message?: unknown
      error?: { code?: unknown; message?: unknown }
    }
    const code = typeof j.error_code === 'string' ? j.error_code : j.error?.code
    const message = typeof j.message === 'string' ? j.message : j.error?.message
    return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined
  } catch {
    return undefined
  }
}

/** The ApiError for a failed answer; the router says "no API route GET /api/x" for a path it lacks. */
export function apiErrorOf(status: number, statusText: string, text: string, path: string): ApiError {
  const f = errorFields(text)
  if (f === undefined) return new ApiError(status, 'NO_JSON', `${status} ${statusText} from ${path}`)
  const routeMissing = status === 404 && /^no (API )?route/i.test(f.message)
  return new ApiError(status, routeMissing ? 'ROUTE_NOT_FOUND' : f.code, f.message)
}

async function errorOf(res: Response, path: string): Promise<ApiError> {
  return apiErrorOf(res.status, res.statusText, await res.text().catch(() => ''), path)
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders() }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new ApiError(0, 'NETWORK', `the console server did not answer (${(err as Error).message})`)
  }
  if (!res.ok) {
    const e = await errorOf(res, path)
    if (res.status === 401) for (const f of unauthorizedListeners) f()
    throw e
  }
  const text = await res.text()
  return (text === '' ? undefined : JSON.parse(text)) as T
}

/** Path segment escaping for names that may hold any character (topic, group, connector). */
export const seg = (s: string): string => encodeURIComponent(s)

export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s === '' ? '' : `?${s}`
}
