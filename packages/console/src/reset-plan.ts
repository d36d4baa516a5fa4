/**
 * An offset reset as the console's API and `sluice groups reset-offsets` share it: the target
 * read from a request, and the plan's rows as both show them. The plan itself comes from the
 * SDK's resetOffsets (one call, dry run or not), so the page and the command cannot differ.
 */
import type { OffsetResetPlanItem, ResetSpec } from '@sluice/client'
import { badRequest } from './errors.js'
import { bigintField } from './http/query.js'

/** `to` of a reset: "earliest" | "latest" | {offset} | {timestamp} | {shiftBy}, exactly one. */
export function resetSpecOf(to: unknown): ResetSpec {
  if (to === 'earliest' || to === 'latest') return to
  if (to !== null && typeof to === 'object' && !Array.isArray(to)) {
    const o = to as Record<string, unknown>
    const keys = Object.keys(o)
    if (keys.length === 1) {
      if (keys[0] === 'offset') return { offset: bigintField(o, 'offset') }
      if (keys[0] === 'timestamp') return { timestamp: bigintField(o, 'timestamp') }
      if (keys[0] === 'shiftBy') return { shiftBy: bigintField(o, 'shiftBy', true) }
    }
  }
  throw badRequest('to must be "earliest", "latest", {"offset": n}, {"timestamp": ms} or {"shiftBy": n}')
}

/**
 * The rows of a reset plan as both the CLI (`sluice groups reset-offsets --json`) and the API
 * answer them: a partition with no committed offset has `current: null`.
 */
export function resetPlanView(plan: readonly OffsetResetPlanItem[]): ResetPlanRow[] {
  return plan.map((p) => ({
    topic: p.topic,
    partition: p.partition,
    current: p.current >= 0n ? p.current : null,
    target: p.target,
  }))
}

export interface ResetPlanRow {
  readonly topic: string
  readonly partition: number
  readonly current: bigint | null
  readonly target: bigint
}
