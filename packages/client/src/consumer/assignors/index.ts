/** The built-in assignors by name (the names members send in JoinGroup protocols). */
import { SluiceError } from '@sluice/protocol'
import type { Assignor, AssignorName } from './assignor-types.js'
import { cooperativeStickyAssignor } from './cooperative-sticky-assignor.js'
import { rangeAssignor } from './range-assignor.js'
import { roundRobinAssignor } from './roundrobin-assignor.js'

export const ASSIGNORS: ReadonlyMap<AssignorName, Assignor> = new Map<AssignorName, Assignor>([
  ['range', rangeAssignor],
  ['roundrobin', roundRobinAssignor],
  ['cooperative-sticky', cooperativeStickyAssignor],
])

export const ASSIGNOR_NAMES = [...ASSIGNORS.keys()]

export function assignorByName(name: string): Assignor {
  const a = ASSIGNORS.get(name as AssignorName)
  if (a === undefined)
    throw new SluiceError(
      'INCONSISTENT_GROUP_PROTOCOL',
      `unknown assignor ${JSON.stringify(name)}; known: ${ASSIGNOR_NAMES.join(', ')}`,
    )
  return a
}

export * from './assignor-types.js'
export { rangeAssignor } from './range-assignor.js'
export { roundRobinAssignor } from './roundrobin-assignor.js'
export {
  cooperativeStickyAssignor,
  stickyTarget,
  cooperativeAdjust,
  validOwners,
} from './cooperative-sticky-assignor.js'
