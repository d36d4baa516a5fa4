/**
 * The predicates a transform can be guarded by (Kafka's `org.apache.kafka.connect.transforms.
 * predicates.*`): TopicNameMatches (`pattern`, a regex the whole topic name matches),
 * HasHeaderKey (`name`, a header key the record has) and RecordIsTombstone (a null value).
 * Three one-line tests, so one file.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Predicate } from '../api/transform.js'
import { compileFullMatch } from './full-match.js'

export const TOPIC_NAME_MATCHES_CONFIG: readonly ConfigField[] = [
  {
    name: 'pattern',
    type: 'string',
    doc: 'A regex the whole topic name must match.',
    check: (v) => (String(v) === '' ? 'must not be empty' : compileFullMatch(String(v)).problem),
  },
]

export class TopicNameMatches implements Predicate {
  readonly configDef = TOPIC_NAME_MATCHES_CONFIG
  #regex: RegExp = /$^/
  configure(config: ConnectorConfig): void {
    this.#regex = compileFullMatch(String(parseConfig(TOPIC_NAME_MATCHES_CONFIG, config).pattern)).regex!
  }
  test(record: ConnectRecord): boolean {
    return this.#regex.test(record.topic)
  }
}

export const HAS_HEADER_KEY_CONFIG: readonly ConfigField[] = [
  {
    name: 'name',
    type: 'string',
    doc: 'The header key.',
    check: (v) => (String(v) === '' ? 'must not be empty' : undefined),
  },
]

export class HasHeaderKey implements Predicate {
  readonly configDef = HAS_HEADER_KEY_CONFIG
  #name = ''
  configure(config: ConnectorConfig): void {
    this.#name = String(parseConfig(HAS_HEADER_KEY_CONFIG, config).name)
  }
  test(record: ConnectRecord): boolean {
    return record.headers.some((h) => h.key === this.#name)
  }
}

export class RecordIsTombstone implements Predicate {
  readonly configDef = []
  configure(): void {}
  test(record: ConnectRecord): boolean {
    return record.value === null || record.value === undefined
  }
}
