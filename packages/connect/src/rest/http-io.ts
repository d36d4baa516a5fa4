/**
 * The REST API's request and response plumbing: JSON bodies with a size bound, and errors in
 * Kafka Connect's shape `{"error_code": <HTTP status>, "message": …}` with the status a
 * ConnectError's code maps to (a config error is a 400 naming its field).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isConnectError, type ConnectErrorCode } from '../errors.js'

const MAX_BODY_BYTES = 1024 * 1024

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

const STATUS_OF: Record<ConnectErrorCode, number> = {
  CONFIG: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CONVERTER: 400,
  TRANSFORM: 400,
  TASK: 500,
  RUNTIME: 500,
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of req) {
    size += (c as Buffer).length
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the request body is over ${MAX_BODY_BYTES} bytes`)
    chunks.push(c as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    throw new HttpError(400, `the request body is not JSON: ${(err as Error).message}`)
  }
}

export function sendJson(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end()
    return
  }
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text)
}

export function sendError(res: ServerResponse, err: unknown): void {
  const status = err instanceof HttpError ? err.status : isConnectError(err) ? STATUS_OF[err.code] : 500
  const message = err instanceof Error ? err.message : String(err)
  sendJson(res, status, { error_code: status, message })
}
