/**
 * How a record's bytes are shown: UTF-8 text when they decode strictly (with `json` set too when
 * the text is JSON), otherwise hex. Large payloads are cut at MAX_SHOWN_BYTES (`truncated`), so
 * one huge record cannot make a page of fifty answer megabytes.
 */
import type { ConsumerMessage } from '@sluice/client'

export const MAX_SHOWN_BYTES = 64 * 1024

export type BytesView =
  | null
  | {
      readonly encoding: 'utf8'
      readonly text: string
      /** Present when the text parses as JSON. */
      readonly json?: unknown
      readonly size: number
      readonly truncated: boolean
    }
  | { readonly encoding: 'hex'; readonly hex: string; readonly size: number; readonly truncated: boolean }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

export function utf8Text(bytes: Buffer): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** JSON.parse of text that looks like JSON, undefined otherwise (parsing builds data only). */
export function parseJsonText(text: string): unknown {
  const t = text.trimStart()
  if (t === '') return undefined
  const c = t[0]!
  if (!('{["-tfn'.includes(c) || (c >= '0' && c <= '9'))) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export function bytesView(bytes: Buffer | null): BytesView {
  if (bytes === null) return null
  const truncated = bytes.length > MAX_SHOWN_BYTES
  const shown = truncated ? bytes.subarray(0, MAX_SHOWN_BYTES) : bytes
  const text = utf8Text(truncated ? bytes : shown)
  if (text !== undefined) {
    const json = truncated ? undefined : parseJsonText(text)
    return {
      encoding: 'utf8',
      text: truncated ? shown.toString('utf8') : text,
      ...(json !== undefined ? { json } : {}),
      size: bytes.length,
      truncated,
    }
  }
  return { encoding: 'hex', hex: shown.toString('hex'), size: bytes.length, truncated }
}

export interface MessageView {
  readonly partition: number
  readonly offset: bigint
  readonly timestamp: bigint
  readonly key: BytesView
  readonly value: BytesView
  readonly headers: ReadonlyArray<{ key: string; value: BytesView }>
}

export function messageView(m: ConsumerMessage): MessageView {
  return {
    partition: m.partition,
    offset: m.offset,
    timestamp: m.timestamp,
    key: bytesView(m.key),
    value: bytesView(m.value),
    headers: m.headers.map((h) => ({ key: h.key, value: bytesView(h.value) })),
  }
}
