/** Serdes for the processor tests' stores (not part of the package build). */
import type { Serde } from '../../api/serde.js'

export const stringSerde: Serde<string> = {
  name: 'string',
  serialize: (value) => Buffer.from(value, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
}

export function jsonSerde<T>(): Serde<T> {
  return {
    name: 'json',
    serialize: (value) => Buffer.from(JSON.stringify(value), 'utf8'),
    deserialize: (data) => JSON.parse(data.toString('utf8')) as T,
  }
}
