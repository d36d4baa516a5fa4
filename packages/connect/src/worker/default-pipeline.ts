/**
 * The record pipeline a connector config describes: its converters (or the worker's) and its
 * transform chain. Built when a task starts, so a bad converter or transform fails that task
 * with the field named (and PUT …/config refused it already, see connect-worker.ts).
 */
import type { ConnectorConfig } from '../api/config-def.js'
import { converterFromConfig } from '../converters/create-converter.js'
import { buildTransformChain } from '../transforms/transform-chain.js'
import type { RecordPipeline } from './record-pipeline.js'

export function defaultPipeline(
  config: ConnectorConfig,
  workerDefaults: Readonly<Record<string, string>>,
): RecordPipeline {
  const chain = buildTransformChain(config)
  const classOf = (field: string): string => config[field] ?? workerDefaults[field] ?? field
  return {
    keyConverter: converterFromConfig(config, true, workerDefaults),
    valueConverter: converterFromConfig(config, false, workerDefaults),
    keyConverterClass: classOf('key.converter'),
    valueConverterClass: classOf('value.converter'),
    transform: (r) => chain.apply(r),
  }
}
