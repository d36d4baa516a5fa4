/**
 * RegexRouter (Kafka's `org.apache.kafka.connect.transforms.RegexRouter`): a record whose whole
 * topic name matches `regex` goes to `replacement`, where `$1`… are the regex's groups (Java's
 * `${name}` for a named group works too). Other records keep their topic. The regex is a
 * JavaScript regex; the common Java syntax (groups, classes, quantifiers) reads the same.
 */
import { parseConfig, type ConfigField, type ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Transformation } from '../api/transform.js'
import { compileFullMatch } from './full-match.js'

export const REGEX_ROUTER_CONFIG: readonly ConfigField[] = [
  {
    name: 'regex',
    type: 'string',
    doc: 'The regex the whole topic name must match.',
    check: (v) => compileFullMatch(String(v)).problem,
  },
  { name: 'replacement', type: 'string', doc: 'The new topic name; $1… are the regex groups.' },
]

export class RegexRouter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = REGEX_ROUTER_CONFIG
  #regex: RegExp = /$^/
  #replacement = ''

  configure(config: ConnectorConfig): void {
    const c = parseConfig(REGEX_ROUTER_CONFIG, config)
    this.#regex = compileFullMatch(String(c.regex)).regex!
    // Java's named-group reference ${name} is JavaScript's $<name>.
    this.#replacement = String(c.replacement).replace(/\$\{(\w+)\}/g, '$$<$1>')
  }

  apply(record: R): R {
    if (!this.#regex.test(record.topic)) return record
    return { ...record, topic: record.topic.replace(this.#regex, this.#replacement) }
  }
}
