/**
 * Request and response plumbing of the console API: JSON bodies with a size bound and a
 * required `content-type: application/json` (so a cross-site form or a "simple" fetch cannot
 * post to the console without a CORS preflight, which the console never grants), and JSON
 * answers in which 64-bit offsets are numbers while exact and strings beyond 2^53.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ConsoleError } from '../errors.js'

const MAX_BODY_BYTES = 1024 * 1024

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of req) {
    size += (c as Buffer).length
    if (size > MAX_BODY_BYTES)
      throw new ConsoleError('PAYLOAD_TOO_LARGE', `the request body is over ${MAX_BODY_BYTES} bytes`)
    chunks.push(c as Buffer)
  }
  if (size === 0) return undefined
  if (type !== 'application/json')
    throw new ConsoleError('UNSUPPORTED_MEDIA_TYPE', 'send the request body as content-type: application/json')
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch (err) {
    throw new ConsoleError('BAD_REQUEST', `the request body is not JSON: ${(err as Error).message}`)
  }
}

function jsonValue(_key: string, v: unknown): unknown {
  if (typeof v !== 'bigint') return v
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString()
}

/** The API's JSON text of a value (bigints as above). */
export const jsonText = (body: unknown): string => JSON.stringify(body, jsonValue)

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = jsonText(body)
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    .end(text)
}
