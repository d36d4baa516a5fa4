/**
 * The string converter (Kafka's `org.apache.kafka.connect.storage.StringConverter`): a value is
 * written as its text in `converter.encoding` (UTF-8 by default) and read back as a string with
 * an optional string schema. Non-string values are written as their String() text, as Kafka
 * writes their toString().
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { Converter, SchemaAndValue } from '../api/converter.js'
import { ConnectError } from '../errors.js'

/** Java charset names (as Kafka configs spell them) and Node's own names. */
const ENCODINGS: ReadonlyMap<string, BufferEncoding> = new Map<string, BufferEncoding>([
  ['utf-8', 'utf8'],
  ['utf8', 'utf8'],
  ['us-ascii', 'ascii'],
  ['ascii', 'ascii'],
  ['iso-8859-1', 'latin1'],
  ['latin1', 'latin1'],
  ['utf-16le', 'utf16le'],
  ['utf16le', 'utf16le'],
])

export const STRING_CONVERTER_CONFIG: readonly ConfigField[] = [
  {
    name: 'converter.encoding',
    type: 'string',
    default: 'UTF-8',
    doc: `The text encoding: ${[...ENCODINGS.keys()].join(', ')} (any case).`,
    check: (v) => (ENCODINGS.has(String(v).toLowerCase()) ? undefined : `unsupported encoding "${String(v)}"`),
  },
]

export class StringConverter implements Converter {
  readonly encoding: BufferEncoding

  constructor(config: ConnectorConfig = {}) {
    const name = parseConfig(STRING_CONVERTER_CONFIG, config)['converter.encoding'] as string
    this.encoding = ENCODINGS.get(name.toLowerCase())!
  }

  fromConnectData(topic: string, data: SchemaAndValue): Buffer | null {
    const v = data.value
    if (v === null || v === undefined) return null
    if (v instanceof Uint8Array || (typeof v === 'object' && !Array.isArray(v)))
      throw new ConnectError(
        'CONVERTER',
        `topic ${topic}: the string converter writes text, got ${v.constructor.name}`,
        {
          details: { topic },
        },
      )
    return Buffer.from(String(v), this.encoding)
  }

  toConnectData(_topic: string, bytes: Buffer | null): SchemaAndValue {
    return { schema: { type: 'string', optional: true }, value: bytes === null ? null : bytes.toString(this.encoding) }
  }
}
