/**
 * `Serdes`: the built-in serdes and `Serdes.from` for user-defined ones. Every serde reports
 * input it cannot handle as StreamsError 'SERDE' naming the serde and the topic.
 */
import type { Serde } from '../api/serde.js'
import { isStreamsError } from '../errors.js'
import { bytesSerde } from './bytes-serde.js'
import { jsonSerde } from './json-serde.js'
import { doubleSerde, int32Serde, int64Serde, longSerde } from './number-serdes.js'
import { serdeError } from './serde-error.js'
import { stringSerde } from './string-serde.js'

export const Serdes = {
  /** UTF-8 text. */
  string: (): Serde<string> => stringSerde,
  /** JSON text (JSON.stringify / JSON.parse). */
  json: <T>(): Serde<T> => jsonSerde<T>(),
  /** Buffers as they are. */
  bytes: (): Serde<Buffer> => bytesSerde,
  /** 4 bytes, big-endian, signed. */
  int32: (): Serde<number> => int32Serde,
  /** 8 bytes, big-endian, signed, as a bigint. */
  int64: (): Serde<bigint> => int64Serde,
  /** The int64 format as a JS number (safe integers only): what count() produces. */
  long: (): Serde<number> => longSerde,
  /** 8 bytes, big-endian IEEE 754. */
  double: (): Serde<number> => doubleSerde,
  /**
   * A user-defined serde. Whatever the functions throw becomes StreamsError 'SERDE' naming
   * the serde and the topic (a StreamsError they throw themselves passes unchanged).
   */
  from<T>(
    name: string,
    serialize: (value: T, topic: string) => Buffer,
    deserialize: (data: Buffer, topic: string) => T,
  ): Serde<T> {
    return {
      name,
      serialize(value, topic) {
        try {
          return serialize(value, topic)
        } catch (e) {
          throw isStreamsError(e) ? e : serdeError(name, topic, 'cannot serialize the value', e)
        }
      },
      deserialize(data, topic) {
        try {
          return deserialize(data, topic)
        } catch (e) {
          throw isStreamsError(e) ? e : serdeError(name, topic, 'cannot deserialize the bytes', e)
        }
      },
    }
  },
}
