/**
 * The JSON converter (Kafka's `org.apache.kafka.connect.json.JsonConverter`). With
 * `schemas.enable=true` (the default, as in Kafka) each key or value is the envelope
 * `{"schema": <schema or null>, "payload": <value>}`, so a reader gets the types back; with
 * `false` the bytes are the plain JSON of the value and it is read back without a schema.
 * int64 values are JSON numbers; see docs/decisions.md for how they are read back.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { Converter, SchemaAndValue } from '../api/converter.js'
import type { Schema } from '../api/schema.js'
import { ConnectError } from '../errors.js'
import { schemaFromJson, schemaToJson } from './json-schema-format.js'
import { parseJsonText, stringifyJson, type JsonValue } from './json-text.js'
import { dataToJson, jsonToData } from './json-values.js'

export const JSON_CONVERTER_CONFIG: readonly ConfigField[] = [
  {
    name: 'schemas.enable',
    type: 'boolean',
    default: 'true',
    doc: 'Write and expect the {"schema", "payload"} envelope around each key or value.',
  },
  {
    name: 'schemas.cache.size',
    type: 'int',
    default: '1000',
    doc: 'How many schemas read from envelopes are kept, so records of one table share one schema object.',
    check: (v) => ((v as number) < 0 ? 'must not be negative' : undefined),
  },
]

export class JsonConverter implements Converter {
  readonly schemasEnabled: boolean
  /** Each written schema's envelope text, computed once per schema object. */
  readonly #schemaText = new WeakMap<Schema, string>()
  /** Schemas read, by their JSON text; the oldest goes when full (a Map keeps insertion order). */
  readonly #schemasRead = new Map<string, Schema>()
  readonly #cacheSize: number

  /** `config`: the converter's own properties (`schemas.enable`), without a prefix. */
  constructor(config: ConnectorConfig = {}) {
    const c = parseConfig(JSON_CONVERTER_CONFIG, config)
    this.schemasEnabled = c['schemas.enable'] as boolean
    this.#cacheSize = c['schemas.cache.size'] as number
  }

  #envelopeSchema(schema: Schema): string {
    let text = this.#schemaText.get(schema)
    if (text === undefined) {
      text = stringifyJson(schemaToJson(schema, (s, v) => dataToJson(s, v, 'default')))
      this.#schemaText.set(schema, text)
    }
    return text
  }

  #schemaOf(json: JsonValue): Schema {
    let key: string
    try {
      key = JSON.stringify(json)
    } catch {
      key = stringifyJson(json) // a bigint default
    }
    const cached = this.#schemasRead.get(key)
    if (cached !== undefined) return cached
    const schema = schemaFromJson(json, (s, v) => jsonToData(s, v, 'default'))
    if (this.#cacheSize > 0) {
      if (this.#schemasRead.size >= this.#cacheSize) this.#schemasRead.delete(this.#schemasRead.keys().next().value!)
      this.#schemasRead.set(key, schema)
    }
    return schema
  }

  fromConnectData(topic: string, data: SchemaAndValue): Buffer | null {
    if ((data.value === null || data.value === undefined) && data.schema === undefined) return null
    try {
      if (!this.schemasEnabled) {
        const json = data.schema === undefined ? data.value : dataToJson(data.schema, data.value)
        return Buffer.from(stringifyJson(json))
      }
      const schema = data.schema === undefined ? 'null' : this.#envelopeSchema(data.schema)
      const payload = stringifyJson(data.schema === undefined ? data.value : dataToJson(data.schema, data.value))
      return Buffer.from(`{"schema":${schema},"payload":${payload}}`)
    } catch (e) {
      throw converterError(topic, 'could not write the value as JSON', e)
    }
  }

  toConnectData(topic: string, bytes: Buffer | null): SchemaAndValue {
    if (bytes === null) return { value: null }
    let json: JsonValue
    try {
      json = parseJsonText(bytes.toString('utf8'))
    } catch (e) {
      throw converterError(topic, 'the bytes are not JSON', e)
    }
    if (!this.schemasEnabled) return { value: json }
    if (
      typeof json !== 'object' ||
      json === null ||
      Array.isArray(json) ||
      Object.keys(json).length !== 2 ||
      !('schema' in json) ||
      !('payload' in json)
    ) {
      throw new ConnectError(
        'CONVERTER',
        `topic ${topic}: with schemas.enable=true the JSON must be {"schema": …, "payload": …} and nothing else` +
          ' (set schemas.enable=false to read plain JSON)',
        { details: { topic } },
      )
    }
    try {
      if (json.schema === null) return { value: json.payload ?? null }
      const schema = this.#schemaOf(json.schema)
      return { schema, value: jsonToData(schema, json.payload) }
    } catch (e) {
      throw converterError(topic, 'the envelope does not match its schema', e)
    }
  }
}

function converterError(topic: string, what: string, e: unknown): ConnectError {
  const reason = e instanceof Error ? e.message : String(e)
  const details = e instanceof ConnectError ? { ...e.details, topic } : { topic }
  return new ConnectError('CONVERTER', `topic ${topic}: ${what}: ${reason}`, { cause: e, details })
}
