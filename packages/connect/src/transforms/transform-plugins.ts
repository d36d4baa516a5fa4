/**
 * The transforms and predicates a connector config can name, under Kafka's class names (so a
 * config written for Kafka Connect works unchanged) and short names (`InsertField$Value`,
 * `InsertField` with `part`, `RegexRouter`, `TopicNameMatches`…).
 */
import type { Predicate, Transformation } from '../api/transform.js'
import { ExtractTopic } from './extract-topic.js'
import { Filter } from './filter.js'
import { InsertField } from './insert-field.js'
import { MaskField } from './mask-field.js'
import { HasHeaderKey, RecordIsTombstone, TopicNameMatches } from './predicates.js'
import type { RecordPart } from './record-part.js'
import { RegexRouter } from './regex-router.js'
import { ReplaceField } from './replace-field.js'

export type TransformFactory = () => Transformation
export type PredicateFactory = () => Predicate

const KAFKA_TRANSFORMS = 'org.apache.kafka.connect.transforms.'
const KAFKA_PREDICATES = 'org.apache.kafka.connect.transforms.predicates.'
const CONFLUENT_TRANSFORMS = 'io.confluent.connect.transforms.'

function withParts(
  out: Map<string, TransformFactory>,
  prefix: string,
  short: string,
  make: (part?: RecordPart) => Transformation,
): void {
  out.set(short, () => make())
  out.set(`${short}$Key`, () => make('key'))
  out.set(`${short}$Value`, () => make('value'))
  out.set(`${prefix}${short}$Key`, () => make('key'))
  out.set(`${prefix}${short}$Value`, () => make('value'))
}

function transforms(): Map<string, TransformFactory> {
  const out = new Map<string, TransformFactory>()
  withParts(out, KAFKA_TRANSFORMS, 'InsertField', (p) => new InsertField(p))
  withParts(out, KAFKA_TRANSFORMS, 'ReplaceField', (p) => new ReplaceField(p))
  withParts(out, KAFKA_TRANSFORMS, 'MaskField', (p) => new MaskField(p))
  withParts(out, CONFLUENT_TRANSFORMS, 'ExtractTopic', (p) => new ExtractTopic(p))
  for (const [short, make] of [
    ['RegexRouter', () => new RegexRouter()],
    ['Filter', () => new Filter()],
  ] as const) {
    out.set(short, make)
    out.set(`${KAFKA_TRANSFORMS}${short}`, make)
  }
  return out
}

function predicates(): Map<string, PredicateFactory> {
  const out = new Map<string, PredicateFactory>()
  for (const [short, make] of [
    ['TopicNameMatches', () => new TopicNameMatches()],
    ['HasHeaderKey', () => new HasHeaderKey()],
    ['RecordIsTombstone', () => new RecordIsTombstone()],
  ] as const) {
    out.set(short, make)
    out.set(`${KAFKA_PREDICATES}${short}`, make)
  }
  return out
}

/** What buildTransformChain looks names up in; a worker may add its own plugins to copies. */
export interface TransformPlugins {
  readonly transforms: ReadonlyMap<string, TransformFactory>
  readonly predicates: ReadonlyMap<string, PredicateFactory>
}

export const BUILTIN_TRANSFORM_PLUGINS: TransformPlugins = { transforms: transforms(), predicates: predicates() }
