/**
 * GET /api/session: what the page needs before anything else, answered without the token (so
 * a page without one learns it must ask for it). It tells only how this console is set up:
 * read-only or not, whether a token is required, whether a Connect worker is configured, and
 * the console's version; nothing about the cluster.
 */
import { ok, type Route } from '../http/route.js'

export interface SessionInfo {
  readonly readOnly: boolean
  readonly tokenRequired: boolean
  readonly connect: boolean
  readonly version: string
}

export function sessionRoutes(info: SessionInfo): Route[] {
  return [{ method: 'GET', path: '/api/session', mutates: false, open: true, handle: async () => ok(info) }]
}
