/**
 * The bytes converter (Kafka's `org.apache.kafka.connect.converters.ByteArrayConverter`): the
 * record's bytes pass through unchanged, with an optional bytes schema. For connectors that
 * copy opaque data (a file of binary lines, a mirror).
 */
import type { Converter, SchemaAndValue } from '../api/converter.js'
import { ConnectError } from '../errors.js'

export class ByteArrayConverter implements Converter {
  fromConnectData(topic: string, data: SchemaAndValue): Buffer | null {
    const v = data.value
    if (v === null || v === undefined) return null
    if (data.schema !== undefined && data.schema.type !== 'bytes')
      throw new ConnectError(
        'CONVERTER',
        `topic ${topic}: the bytes converter needs a bytes schema, got ${data.schema.type}`,
        {
          details: { topic },
        },
      )
    if (!(v instanceof Uint8Array))
      throw new ConnectError('CONVERTER', `topic ${topic}: the bytes converter writes a Buffer, got a ${typeof v}`, {
        details: { topic },
      })
    return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  }

  toConnectData(_topic: string, bytes: Buffer | null): SchemaAndValue {
    return { schema: { type: 'bytes', optional: true }, value: bytes }
  }
}
