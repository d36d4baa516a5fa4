/**
 * Splits a byte stream (stdin) into lines without reading ahead: the next chunk is pulled only
 * after the consumer has taken every line of the current one, so a slow producer applies
 * back-pressure all the way to the pipe and memory stays bounded by one chunk plus one line.
 * Handles `\n` and `\r\n`, UTF-8 characters split across chunks, and a last line without a
 * newline. An empty line is a record with an empty value, as in Kafka's console producer.
 */
import { StringDecoder } from 'node:string_decoder'

export interface LineReaderOptions {
  /** A line longer than this is an error rather than unbounded buffering. Default 16 MiB. */
  readonly maxLineChars?: number
}

export async function* readLines(
  input: AsyncIterable<Buffer | string>,
  options: LineReaderOptions = {},
): AsyncGenerator<string> {
  const maxLineChars = options.maxLineChars ?? 16 * 1024 * 1024
  const decoder = new StringDecoder('utf8')
  let pending = ''
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk)
    let start = 0
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
      const end = nl > start && pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
      yield pending.slice(start, end)
      start = nl + 1
    }
    pending = pending.slice(start)
    if (pending.length > maxLineChars) throw new Error(`input line longer than ${maxLineChars} characters`)
  }
  pending += decoder.end()
  if (pending.endsWith('\r')) pending = pending.slice(0, -1)
  if (pending !== '') yield pending
}

/** Splits `key<sep>value` at the first separator; a line without one has no key. */
export function splitKey(line: string, separator: string | undefined): { key: string | undefined; value: string } {
  if (separator === undefined) return { key: undefined, value: line }
  const at = line.indexOf(separator)
  if (at < 0) return { key: undefined, value: line }
  return { key: line.slice(0, at), value: line.slice(at + separator.length) }
}
