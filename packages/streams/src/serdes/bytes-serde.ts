/** Raw bytes, passed through as they are (no copy). */
import type { Serde } from '../api/serde.js'
import { serdeError } from './serde-error.js'

export const bytesSerde: Serde<Buffer> = {
  name: 'bytes',
  serialize(value, topic) {
    if (!Buffer.isBuffer(value)) throw serdeError('bytes', topic, `expected a Buffer, got ${typeof value}`)
    return value
  },
  deserialize(data) {
    return data
  },
}
