/**
 * Typed reads of query parameters and JSON body fields. Every value arrives as text the user
 * typed; a wrong one is a 400 that names the parameter, never a NaN passed to the SDK.
 */
import { badRequest } from '../errors.js'

export function intParam(
  q: URLSearchParams,
  name: string,
  options: { min?: number; max?: number; fallback?: number } = {},
): number | undefined {
  const text = q.get(name)
  if (text === null || text.trim() === '') return options.fallback
  if (!/^-?\d+$/.test(text.trim())) throw badRequest(`${name} must be an integer, got "${text}"`)
  const n = Number(text.trim())
  if (options.min !== undefined && n < options.min) throw badRequest(`${name} must be at least ${options.min}`)
  if (options.max !== undefined && n > options.max) throw badRequest(`${name} must be at most ${options.max}`)
  return n
}

export function bigintParam(q: URLSearchParams, name: string): bigint | undefined {
  const text = q.get(name)
  if (text === null || text.trim() === '') return undefined
  if (!/^\d+$/.test(text.trim())) throw badRequest(`${name} must be a non-negative integer, got "${text}"`)
  return BigInt(text.trim())
}

/** An object body (the routes that take one never accept an array or a scalar). */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('the request body must be a JSON object')
  return body as Record<string, unknown>
}

export function stringField(o: Record<string, unknown>, name: string): string {
  const v = o[name]
  if (typeof v !== 'string' || v === '') throw badRequest(`${name} must be a non-empty string`)
  return v
}

export function optionalIntField(o: Record<string, unknown>, name: string, min = 0): number | undefined {
  const v = o[name]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw badRequest(`${name} must be an integer >= ${min}`)
  return v
}

/** An offset-like field given as a JSON number or a string of digits (JSON numbers stop at 2^53). */
export function bigintField(o: Record<string, unknown>, name: string, signed = false): bigint {
  const v = o[name]
  if (typeof v === 'number' && Number.isInteger(v) && (signed || v >= 0)) return BigInt(v)
  if (typeof v === 'string' && (signed ? /^[+-]?\d+$/ : /^\d+$/).test(v.trim())) return BigInt(v.trim())
  throw badRequest(`${name} must be ${signed ? 'an' : 'a non-negative'} integer`)
}

/** A map of string to string (configs), nulls allowed when `allowNull`. */
export function stringMapField(
  o: Record<string, unknown>,
  name: string,
  allowNull: boolean,
): Record<string, string | null> | undefined {
  const v = o[name]
  if (v === undefined) return undefined
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${name} must be an object`)
  const out: Record<string, string | null> = {}
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string' || (allowNull && val === null)) out[k] = val
    else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val)
    else throw badRequest(`${name}.${k} must be a string${allowNull ? ' or null' : ''}`)
  }
  return out
}
