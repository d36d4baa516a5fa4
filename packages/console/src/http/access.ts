/**
 * Who may do what, checked on the server for every request before its route runs (the page
 * hiding a button is never the protection): with a token configured, every route needs
 * `Authorization: Bearer <token>` (401 otherwise, compared in constant time); in read-only mode
 * every route that would change the cluster answers 403, whatever the page shows.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { ConsoleError } from '../errors.js'

export interface AccessPolicy {
  readonly readOnly: boolean
  /** undefined: no token needed (the server then listens on 127.0.0.1 unless told otherwise). */
  readonly token: string | undefined
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest()

/**
 * `queryToken`: the `access_token` query parameter (RFC 6750 §2.3), passed only for the routes
 * a browser's EventSource opens, since EventSource cannot send an Authorization header.
 */
export function checkToken(policy: AccessPolicy, req: IncomingMessage, queryToken?: string | null): void {
  if (policy.token === undefined) return
  const header = req.headers.authorization ?? ''
  const given = /^Bearer\s+(.+)$/i.exec(header.trim())?.[1] ?? queryToken ?? undefined
  // Digests have one length, so timingSafeEqual never throws and the length of the token leaks nothing.
  if (given === undefined || !timingSafeEqual(digest(given), digest(policy.token)))
    throw new ConsoleError('UNAUTHORIZED', 'this console needs an access token: send Authorization: Bearer <token>')
}

export function checkWrite(policy: AccessPolicy, mutates: boolean, what: string): void {
  if (policy.readOnly && mutates) throw new ConsoleError('FORBIDDEN', `the console is read-only: ${what} is refused`)
}
