/** JSON text in UTF-8 (JSON.stringify / JSON.parse); the type parameter is the caller's promise, not checked. */
import type { Serde } from '../api/serde.js'
import { serdeError } from './serde-error.js'

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function jsonSerde<T>(): Serde<T> {
  return {
    name: 'json',
    serialize(value, topic) {
      let text: string | undefined
      try {
        text = JSON.stringify(value)
      } catch (e) {
        throw serdeError('json', topic, 'the value cannot be written as JSON', e)
      }
      // JSON.stringify returns undefined for undefined, functions and symbols: no JSON text.
      if (text === undefined) throw serdeError('json', topic, `a ${typeof value} has no JSON form`)
      return Buffer.from(text, 'utf8')
    },
    deserialize(data, topic) {
      try {
        return JSON.parse(decoder.decode(data)) as T
      } catch (e) {
        throw serdeError('json', topic, 'the bytes are not JSON', e)
      }
    },
  }
}
