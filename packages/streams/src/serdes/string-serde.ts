/** UTF-8 text. Invalid UTF-8 is an error, never silently replaced (a key must round-trip to the same bytes). */
import type { Serde } from '../api/serde.js'
import { serdeError } from './serde-error.js'

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export const stringSerde: Serde<string> = {
  name: 'string',
  serialize(value, topic) {
    if (typeof value !== 'string') throw serdeError('string', topic, `expected a string, got ${typeof value}`)
    return Buffer.from(value, 'utf8')
  },
  deserialize(data, topic) {
    try {
      return decoder.decode(data)
    } catch (e) {
      throw serdeError('string', topic, 'the bytes are not valid UTF-8', e)
    }
  },
}
