/**
 * What a console API route is: a method, a path pattern with `:name` segments, whether it
 * changes the cluster (read-only mode refuses those with 403, decided on the server for every
 * request), and a handler that answers with a status and a JSON body, or with a stream it
 * writes itself (the live tail's Server-Sent Events).
 */
import type { ServerResponse } from 'node:http'
import type { SluiceClient } from '@sluice/client'

export interface RouteRequest {
  readonly client: SluiceClient
  /** Path parameters, already URI-decoded. */
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly body: unknown
  /** Aborted when the HTTP client goes away: long scans stop then. */
  readonly signal: AbortSignal
}

export interface JsonAnswer {
  readonly status: number
  readonly body: unknown
}

/** An answer the route writes itself, headers included; it resolves when the response is done. */
export interface StreamAnswer {
  readonly stream: (res: ServerResponse, signal: AbortSignal) => Promise<void>
}

export type RouteAnswer = JsonAnswer | StreamAnswer

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly path: string
  /** true: always a change; a function: decided from the request (a dry run changes nothing). */
  readonly mutates: boolean | ((request: RouteRequest) => boolean)
  /**
   * Answered without the access token. Only GET /api/session is: the page must learn that it
   * has to ask for a token before it has one; such a route reveals nothing about the cluster.
   */
  readonly open?: boolean
  /**
   * The token may also come as `?access_token=` (RFC 6750 §2.3): only for the live tail, which a
   * page opens with EventSource, and EventSource cannot send an Authorization header.
   */
  readonly tokenInQuery?: boolean
  handle(request: RouteRequest): Promise<RouteAnswer>
}

export const ok = (body: unknown): RouteAnswer => ({ status: 200, body })
export const created = (body: unknown): RouteAnswer => ({ status: 201, body })
