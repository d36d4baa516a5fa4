/**
 * The checks every window definition makes on its durations, so a bad size, advance, gap or
 * grace fails when the topology is written (StreamsError 'CONFIG') rather than when the first
 * record arrives.
 */
import { StreamsError } from '../errors.js'

/** A window's bounds in ms. Whether `end` is inclusive depends on the kind (see each definition). */
export interface WindowBounds {
  readonly start: number
  readonly end: number
}

/**
 * Throws StreamsError 'CONFIG' unless `value` is a safe integer of at least `min` ms.
 * `what` names the definition and the option, for instance 'TimeWindows size'.
 */
export function checkDurationMs(what: string, value: unknown, min: 0 | 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const wanted = min === 0 ? 'an integer >= 0' : 'a positive integer'
    throw new StreamsError('CONFIG', `${what} must be ${wanted} of milliseconds, got ${String(value)}`, {
      details: { option: what, value },
    })
  }
  return value
}
