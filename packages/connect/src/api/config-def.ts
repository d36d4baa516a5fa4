/**
 * A connector's (or transform's, or converter's) config fields: what PUT
 * /connector-plugins/{plugin}/config/validate reports and what a bad config is refused with. A
 * config is a flat map of strings, as in Kafka Connect; each field parses its string.
 */
import { ConnectError } from '../errors.js'

export type ConfigType = 'string' | 'int' | 'long' | 'double' | 'boolean' | 'list' | 'password' | 'class'

export interface ConfigField {
  readonly name: string
  readonly type: ConfigType
  readonly doc: string
  /** Absent: the field is required. */
  readonly default?: string
  /** Allowed values (strings as written in the config). */
  readonly oneOf?: readonly string[]
  /** Further checks of the parsed value; returns the problem, or undefined. */
  readonly check?: (value: unknown) => string | undefined
  /** For the validate answer's grouping (e.g. 'Common', 'Connection'). */
  readonly group?: string
}

export type ConnectorConfig = Readonly<Record<string, string>>

/** One field's result, as the validate endpoint lists it. */
export interface FieldResult {
  readonly name: string
  readonly value: string | null
  readonly errors: readonly string[]
}

/** Parses one field's string as its type; throws a message (not an error) on a bad value. */
function parse(field: ConfigField, raw: string): unknown {
  switch (field.type) {
    case 'int':
    case 'long': {
      if (!/^-?\d+$/.test(raw.trim())) throw `must be an integer, got "${raw}"`
      const n = Number(raw)
      if (field.type === 'int' && (n < -(2 ** 31) || n >= 2 ** 31)) throw `out of range for an int: ${raw}`
      return n
    }
    case 'double': {
      const n = Number(raw)
      if (raw.trim() === '' || !Number.isFinite(n)) throw `must be a number, got "${raw}"`
      return n
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase()
      if (v !== 'true' && v !== 'false') throw `must be true or false, got "${raw}"`
      return v === 'true'
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    default:
      return raw
  }
}

/** Checks every field of `defs` against `config`: one result per field, errors named. */
export function validateConfig(defs: readonly ConfigField[], config: ConnectorConfig): FieldResult[] {
  return defs.map((f) => {
    const raw = config[f.name] ?? f.default
    if (raw === undefined)
      return {
        name: f.name,
        value: null,
        errors: [`Missing required configuration "${f.name}" which has no default value.`],
      }
    const errors: string[] = []
    try {
      const value = parse(f, raw)
      if (f.oneOf !== undefined && !f.oneOf.includes(raw))
        errors.push(`must be one of ${f.oneOf.join(', ')}, got "${raw}"`)
      const problem = f.check?.(value)
      if (problem !== undefined) errors.push(problem)
    } catch (msg) {
      errors.push(String(msg))
    }
    return { name: f.name, value: f.type === 'password' ? '[hidden]' : raw, errors }
  })
}

/**
 * The parsed config, or a ConnectError 'CONFIG' naming the first bad field (in `defs` order).
 * Fields not in `defs` are kept as strings (a connector may read more than it declares).
 */
export function parseConfig(defs: readonly ConfigField[], config: ConnectorConfig): Record<string, unknown> {
  const bad = validateConfig(defs, config).find((r) => r.errors.length > 0)
  if (bad !== undefined) {
    throw new ConnectError('CONFIG', `${bad.name}: ${bad.errors.join('; ')}`, {
      details: { field: bad.name, errors: bad.errors },
    })
  }
  const out: Record<string, unknown> = { ...config }
  for (const f of defs) {
    const raw = config[f.name] ?? f.default
    if (raw !== undefined) out[f.name] = parse(f, raw)
  }
  return out
}
