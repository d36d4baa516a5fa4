/**
 * Converters by name, as `key.converter` / `value.converter` name them: Kafka's class names (so
 * a connector config written for Kafka Connect works unchanged) or short aliases. A converter's
 * own properties come from the same config under the `key.converter.` / `value.converter.`
 * prefix; a bad one is a CONFIG error naming the full field (`value.converter.schemas.enable`).
 */
import type { ConnectorConfig } from '../api/config-def.js'
import type { Converter } from '../api/converter.js'
import { ConnectError, configError, isConnectError } from '../errors.js'
import { ByteArrayConverter } from './byte-array-converter.js'
import { JsonConverter } from './json-converter.js'
import { StringConverter } from './string-converter.js'

type ConverterFactory = (config: ConnectorConfig) => Converter

const FACTORIES: ReadonlyMap<string, ConverterFactory> = new Map<string, ConverterFactory>([
  ['org.apache.kafka.connect.json.JsonConverter', (c) => new JsonConverter(c)],
  ['json', (c) => new JsonConverter(c)],
  ['org.apache.kafka.connect.storage.StringConverter', (c) => new StringConverter(c)],
  ['string', (c) => new StringConverter(c)],
  ['org.apache.kafka.connect.converters.ByteArrayConverter', () => new ByteArrayConverter()],
  ['bytes', () => new ByteArrayConverter()],
])

/** The names createConverter accepts (for GET /connector-plugins and error messages). */
export const CONVERTER_NAMES: readonly string[] = [...FACTORIES.keys()]

/** The properties under `prefix.` (e.g. `value.converter.`), with the prefix taken off. */
export function converterConfig(config: ConnectorConfig, prefix: string): Record<string, string> {
  const out: Record<string, string> = {}
  const p = `${prefix}.`
  for (const [k, v] of Object.entries(config)) if (k.startsWith(p)) out[k.slice(p.length)] = v
  return out
}

/**
 * A converter from its class name or alias; `config` holds its own properties (prefix taken
 * off, see converterConfig). Unknown names and bad properties are CONFIG errors naming the
 * field as written in a connector config (`key.converter`, `value.converter.schemas.enable`).
 */
export function createConverter(name: string, config: ConnectorConfig, isKey: boolean): Converter {
  const field = isKey ? 'key.converter' : 'value.converter'
  const factory = FACTORIES.get(name.trim())
  if (factory === undefined)
    throw configError(field, `unknown converter "${name}"; known: ${CONVERTER_NAMES.join(', ')}`)
  try {
    return factory(config)
  } catch (e) {
    if (isConnectError(e, 'CONFIG') && typeof e.details.field === 'string') {
      const full = `${field}.${e.details.field}`
      throw new ConnectError('CONFIG', `${full}: ${e.message.replace(`${e.details.field}: `, '')}`, {
        cause: e,
        details: { ...e.details, field: full },
      })
    }
    throw e
  }
}

/**
 * The key or value converter a connector config asks for, falling back to the worker's
 * (`fallback`: the worker config, which has the same fields).
 */
export function converterFromConfig(
  config: ConnectorConfig,
  isKey: boolean,
  fallback: ConnectorConfig = {},
): Converter {
  const field = isKey ? 'key.converter' : 'value.converter'
  const own = config[field]
  const source = own !== undefined ? config : fallback
  const name = source[field]
  if (name === undefined) throw configError(field, 'no converter set (in the connector or the worker config)')
  return createConverter(name, converterConfig(source, field), isKey)
}
