/**
 * One call to a Connect worker's REST API as a script would make it (JSON in, JSON out), for
 * the in-process tests, the multi-process tests and the benchmarks alike. The answer keeps the
 * HTTP status, so tests can check Kafka Connect's codes (201, 409, 400 …); an empty body
 * (204, 202 without content) is `undefined`.
 */

// Answers are read field by field, as a script would; each caller checks the shapes it needs.
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of many shapes
export type RestJson = any

export interface RestAnswer {
  readonly status: number
  readonly body: RestJson
}

/** `method path` against the worker at `baseUrl` (`http://host:port`), with `body` as JSON. */
export async function connectRest(baseUrl: string, method: string, path: string, body?: unknown): Promise<RestAnswer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}
