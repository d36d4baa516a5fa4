/** Validation and defaults of GroupConsumerOptions (every violation reported at once). */
import { OptionChecker, type ResolvedConnectOptions } from '../../options.js'
import { ASSIGNOR_NAMES, assignorByName } from '../assignors/index.js'
import {
  customAssignorProblems,
  fromBuiltIn,
  fromCustom,
  isCustomAssignor,
  type GroupAssignor,
} from '../assignors/custom-assignor.js'
import type { AssignorName } from '../assignors/assignor-types.js'
import type { FetcherOptions } from '../fetcher.js'
import type { GroupConsumerOptions, RebalanceListener } from './group-types.js'

export interface ResolvedGroupOptions {
  groupId: string
  groupInstanceId: string
  sessionTimeoutMs: number
  heartbeatIntervalMs: number
  maxPollIntervalMs: number
  assignors: GroupAssignor[]
  autoCommit: boolean
  autoCommitIntervalMs: number
  autoOffsetReset: 'earliest' | 'latest' | 'none'
  rebalanceListener: RebalanceListener
  metadataMaxAgeMs: number
}

const INT32_MAX = 2 ** 31 - 1

export function resolveGroupConsumerOptions(
  o: GroupConsumerOptions,
  client: ResolvedConnectOptions,
): { fetcher: FetcherOptions; group: ResolvedGroupOptions } {
  const c = new OptionChecker('consumer')
  c.check(
    typeof o.groupId === 'string' && o.groupId !== '',
    'groupId must be a non-empty string',
    typeof o.groupId === 'string' ? 'range' : 'type',
  )
  c.check(
    o.groupInstanceId === undefined || (typeof o.groupInstanceId === 'string' && o.groupInstanceId !== ''),
    'groupInstanceId must be a non-empty string when given',
  )
  c.int('maxWaitMs', o.maxWaitMs, 0)
  c.int('minBytes', o.minBytes, 0)
  c.int('maxBytes', o.maxBytes, 1, INT32_MAX)
  c.int('maxPartitionBytes', o.maxPartitionBytes, 1, INT32_MAX)
  c.int('maxBufferedBytes', o.maxBufferedBytes, 1)
  c.oneOf('isolationLevel', o.isolationLevel, ['read_uncommitted', 'read_committed'])
  c.int('sessionTimeoutMs', o.sessionTimeoutMs, 1, INT32_MAX)
  c.int('heartbeatIntervalMs', o.heartbeatIntervalMs, 1, INT32_MAX)
  c.int('maxPollIntervalMs', o.maxPollIntervalMs, 1, INT32_MAX)
  c.int('autoCommitIntervalMs', o.autoCommitIntervalMs, 1, INT32_MAX)
  c.int('metadataMaxAgeMs', o.metadataMaxAgeMs, 1, INT32_MAX)
  c.check(o.autoCommit === undefined || typeof o.autoCommit === 'boolean', 'autoCommit must be a boolean', 'type')
  c.oneOf('autoOffsetReset', o.autoOffsetReset, ['earliest', 'latest', 'none'])
  const assignors = o.assignors ?? ['cooperative-sticky', 'range']
  c.check(
    Array.isArray(assignors) &&
      assignors.length > 0 &&
      assignors.every((a) => isCustomAssignor(a) || ASSIGNOR_NAMES.includes(a)),
    `assignors must be a non-empty list of ${ASSIGNOR_NAMES.join(', ')} or custom assignor objects`,
  )
  const customs = Array.isArray(assignors) ? assignors.filter(isCustomAssignor) : []
  for (const a of customs) for (const problem of customAssignorProblems(a)) c.check(false, problem, 'type')
  // A custom assignor named like a built-in one would make the group's protocol name ambiguous.
  for (const a of customs)
    c.check(
      !ASSIGNOR_NAMES.includes(a.name as AssignorName),
      `custom assignor ${JSON.stringify(a.name)} takes the name of a built-in assignor`,
    )
  const names = Array.isArray(assignors) ? assignors.map((a) => (isCustomAssignor(a) ? a.name : a)) : []
  c.check(new Set(names).size === names.length, 'assignors must not repeat a name')
  const sessionTimeoutMs = o.sessionTimeoutMs ?? 45_000
  const heartbeatIntervalMs = o.heartbeatIntervalMs ?? 3000
  c.check(
    heartbeatIntervalMs < sessionTimeoutMs,
    `heartbeatIntervalMs (${heartbeatIntervalMs}) must be below sessionTimeoutMs (${sessionTimeoutMs})`,
  )
  c.check(
    o.rebalanceListener === undefined || (typeof o.rebalanceListener === 'object' && o.rebalanceListener !== null),
    'rebalanceListener must be an object of callbacks',
    'type',
  )
  c.done()
  const autoOffsetReset = o.autoOffsetReset ?? 'latest'
  return {
    fetcher: {
      maxWaitMs: o.maxWaitMs ?? 500,
      minBytes: o.minBytes ?? 1,
      maxBytes: o.maxBytes ?? 50 * 1024 * 1024,
      maxBufferedBytes: o.maxBufferedBytes ?? o.maxBytes ?? 50 * 1024 * 1024,
      maxPartitionBytes: o.maxPartitionBytes ?? 1024 * 1024,
      isolationLevel: o.isolationLevel === 'read_committed' ? 1 : 0,
      offsetReset: autoOffsetReset,
      requestTimeoutMs: client.requestTimeoutMs,
      clientId: client.clientId,
      retry: client.retry,
      dataTransport: client.dataTransport,
    },
    group: {
      groupId: o.groupId,
      groupInstanceId: o.groupInstanceId ?? '',
      sessionTimeoutMs,
      heartbeatIntervalMs,
      maxPollIntervalMs: o.maxPollIntervalMs ?? 300_000,
      assignors: assignors.map((a) => (isCustomAssignor(a) ? fromCustom(a) : fromBuiltIn(assignorByName(a)))),
      autoCommit: o.autoCommit ?? true,
      autoCommitIntervalMs: o.autoCommitIntervalMs ?? 5000,
      autoOffsetReset,
      rebalanceListener: o.rebalanceListener ?? {},
      metadataMaxAgeMs: o.metadataMaxAgeMs ?? 300_000,
    },
  }
}
