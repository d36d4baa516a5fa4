/**
 * ExtractTopic (the router Confluent ships as `io.confluent.connect.transforms.ExtractTopic$Key`
 * / `$Value`): the record goes to the topic named by a field of its key or value (`field`), or by
 * the whole key or value when `field` is empty. A missing or null name is a TRANSFORM error,
 * unless `skip.missing.or.null=true` keeps the record's topic.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Transformation } from '../api/transform.js'
import { ConnectError } from '../errors.js'
import { PART_FIELD, isFieldMap, readPart, resolvePart, type RecordPart } from './record-part.js'

export const EXTRACT_TOPIC_CONFIG: readonly ConfigField[] = [
  PART_FIELD,
  { name: 'field', type: 'string', default: '', doc: 'The field holding the topic; empty: the whole key or value.' },
  {
    name: 'skip.missing.or.null',
    type: 'boolean',
    default: 'false',
    doc: 'Keep the record’s topic when the field is missing or null (else the record fails).',
  },
]

export class ExtractTopic<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = EXTRACT_TOPIC_CONFIG
  #part: RecordPart = 'value'
  #field = ''
  #skip = false

  constructor(readonly fixedPart?: RecordPart) {}

  configure(config: ConnectorConfig): void {
    this.#part = resolvePart(this.fixedPart, config)
    const c = parseConfig(EXTRACT_TOPIC_CONFIG, config)
    this.#field = String(c.field)
    this.#skip = c['skip.missing.or.null'] as boolean
  }

  apply(record: R): R {
    const data = readPart(record, this.#part)
    let name: unknown = data.value
    if (this.#field !== '') name = isFieldMap(data.value) ? data.value[this.#field] : undefined
    if (name === null || name === undefined) {
      if (this.#skip) return record
      const where = this.#field === '' ? `the ${this.#part}` : `field "${this.#field}" of the ${this.#part}`
      throw new ConnectError('TRANSFORM', `ExtractTopic: ${where} is missing or null`, {
        details: { topic: record.topic },
      })
    }
    if (typeof name !== 'string' && typeof name !== 'number' && typeof name !== 'bigint')
      throw new ConnectError('TRANSFORM', `ExtractTopic: a topic name must be a string, got a ${typeof name}`, {
        details: { topic: record.topic },
      })
    const topic = String(name)
    if (topic === '')
      throw new ConnectError('TRANSFORM', 'ExtractTopic: the topic name is empty', { details: { topic: record.topic } })
    return { ...record, topic }
  }
}
