/**
 * The transforms a connector config lists, built and applied in order (Kafka Connect's
 * `transforms=a,b` with `transforms.a.type` and `transforms.a.<property>`, and `predicates=p`
 * with `predicates.p.type` and `predicates.p.<property>`; `transforms.a.predicate=p` applies `a`
 * only to the records `p` picks, `transforms.a.negate=true` only to the others). A bad config is
 * a CONFIG error naming the field as written in the connector config (`transforms.a.renames`);
 * a transform failing on a record is a TRANSFORM error naming the transform's alias and type.
 */
import type { ConnectorConfig } from '../api/config-def.js'
import type { ConnectRecord } from '../api/records.js'
import type { Predicate, Transformation } from '../api/transform.js'
import { ConnectError, configError, isConnectError } from '../errors.js'
import { BUILTIN_TRANSFORM_PLUGINS, type TransformPlugins } from './transform-plugins.js'

export interface TransformStep {
  /** The alias in `transforms`. */
  readonly alias: string
  /** The type as configured (a class name or short name). */
  readonly type: string
  readonly transform: Transformation
  readonly predicate?: { readonly alias: string; readonly predicate: Predicate; readonly negate: boolean }
}

export class TransformChain {
  constructor(readonly steps: readonly TransformStep[]) {}

  /** The record after every step, or null when a step dropped it. Throws TRANSFORM. */
  apply<R extends ConnectRecord>(record: R): R | null {
    let r: R = record
    for (const step of this.steps) {
      try {
        const p = step.predicate
        if (p !== undefined && p.predicate.test(r) === p.negate) continue
        const out = step.transform.apply(r) as R | null
        if (out === null) return null
        r = out
      } catch (e) {
        throw transformError(step, e)
      }
    }
    return r
  }
}

function transformError(step: TransformStep, e: unknown): ConnectError {
  const facts = { transform: step.alias, className: step.type }
  if (isConnectError(e))
    return new ConnectError(e.code, `transform ${step.alias}: ${e.message}`, {
      cause: e,
      details: { ...e.details, ...facts },
    })
  const reason = e instanceof Error ? e.message : String(e)
  return new ConnectError('TRANSFORM', `transform ${step.alias} (${step.type}) failed: ${reason}`, {
    cause: e,
    details: facts,
  })
}

function aliases(config: ConnectorConfig, field: string): string[] {
  const list = (config[field] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const seen = new Set<string>()
  for (const a of list) {
    if (seen.has(a)) throw configError(field, `"${a}" is listed twice`)
    seen.add(a)
  }
  return list
}

/** The properties under `prefix` with the prefix taken off, less the chain's own. */
function propsOf(config: ConnectorConfig, prefix: string, reserved: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(config)) {
    if (!k.startsWith(prefix)) continue
    const name = k.slice(prefix.length)
    if (!reserved.includes(name)) out[name] = v
  }
  return out
}

/** Runs a plugin's configure(), naming a bad field in full (`transforms.a.` + its field). */
function configureNamed(plugin: Transformation | Predicate, props: ConnectorConfig, prefix: string): void {
  try {
    plugin.configure(props)
  } catch (e) {
    if (isConnectError(e, 'CONFIG') && typeof e.details.field === 'string') {
      const inner = e.details.field
      const full = `${prefix}${inner}`
      throw new ConnectError(
        'CONFIG',
        `${full}: ${e.message.startsWith(`${inner}: `) ? e.message.slice(inner.length + 2) : e.message}`,
        {
          cause: e,
          details: { ...e.details, field: full },
        },
      )
    }
    throw configError(`${prefix}type`, `could not be configured: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function buildPredicates(config: ConnectorConfig, plugins: TransformPlugins): Map<string, Predicate> {
  const out = new Map<string, Predicate>()
  for (const alias of aliases(config, 'predicates')) {
    const prefix = `predicates.${alias}.`
    const type = config[`${prefix}type`]?.trim()
    if (type === undefined || type === '') throw configError(`${prefix}type`, `predicate "${alias}" needs a type`)
    const make = plugins.predicates.get(type)
    if (make === undefined)
      throw configError(
        `${prefix}type`,
        `unknown predicate "${type}"; known: ${[...plugins.predicates.keys()].join(', ')}`,
      )
    const predicate = make()
    configureNamed(predicate, propsOf(config, prefix, ['type']), prefix)
    out.set(alias, predicate)
  }
  return out
}

/** The chain a connector config describes; CONFIG naming the field on a bad one. */
export function buildTransformChain(
  config: ConnectorConfig,
  plugins: TransformPlugins = BUILTIN_TRANSFORM_PLUGINS,
): TransformChain {
  const predicates = buildPredicates(config, plugins)
  const steps: TransformStep[] = []
  for (const alias of aliases(config, 'transforms')) {
    const prefix = `transforms.${alias}.`
    const type = config[`${prefix}type`]?.trim()
    if (type === undefined || type === '') throw configError(`${prefix}type`, `transform "${alias}" needs a type`)
    const make = plugins.transforms.get(type)
    if (make === undefined)
      throw configError(
        `${prefix}type`,
        `unknown transform "${type}"; known: ${[...plugins.transforms.keys()].join(', ')}`,
      )
    const transform = make()
    configureNamed(transform, propsOf(config, prefix, ['type', 'predicate', 'negate']), prefix)
    const predicateAlias = config[`${prefix}predicate`]?.trim()
    const negateRaw = config[`${prefix}negate`]?.trim().toLowerCase()
    if (negateRaw !== undefined && negateRaw !== 'true' && negateRaw !== 'false')
      throw configError(`${prefix}negate`, `must be true or false, got "${config[`${prefix}negate`]}"`)
    let predicate: TransformStep['predicate']
    if (predicateAlias !== undefined && predicateAlias !== '') {
      const p = predicates.get(predicateAlias)
      if (p === undefined)
        throw configError(
          `${prefix}predicate`,
          `"${predicateAlias}" is not one of the predicates (${[...predicates.keys()].join(', ') || 'none'})`,
        )
      predicate = { alias: predicateAlias, predicate: p, negate: negateRaw === 'true' }
    } else if (negateRaw !== undefined) {
      throw configError(`${prefix}negate`, 'negate needs a predicate')
    }
    steps.push({ alias, type, transform, ...(predicate === undefined ? {} : { predicate }) })
  }
  return new TransformChain(steps)
}
