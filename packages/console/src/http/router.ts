/**
 * Finds the route for a method and path. Path segments are matched literally or bound to a
 * `:name` parameter (URI-decoded, so a topic named `a.b-c` or a group `x/y` sent as `x%2Fy`
 * works); a known path with another method is a 405, an unknown one a 404.
 */
import { ConsoleError } from '../errors.js'
import type { Route } from './route.js'

export interface MatchedRoute {
  readonly route: Route
  readonly params: Record<string, string>
}

export class Router {
  private readonly compiled: Array<{ route: Route; segments: string[] }>

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/').filter((s) => s !== '') }))
  }

  find(method: string, pathname: string): MatchedRoute {
    const parts = pathname.split('/').filter((s) => s !== '')
    let pathKnown = false
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts)
      if (params === undefined) continue
      pathKnown = true
      if (route.method === method) return { route, params }
    }
    if (pathKnown) throw new ConsoleError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathname}`)
    throw new ConsoleError('NOT_FOUND', `no API route ${method} ${pathname}`)
  }
}

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined
  // A null-prototype map: a parameter named by the user can never reach Object.prototype.
  const params = Object.create(null) as Record<string, string>
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!
    const p = parts[i]!
    if (s.startsWith(':')) {
      let decoded: string
      try {
        decoded = decodeURIComponent(p)
      } catch {
        throw new ConsoleError('BAD_REQUEST', `the path segment "${p}" is not valid URI encoding`)
      }
      params[s.slice(1)] = decoded
    } else if (s !== p) return undefined
  }
  return params
}
