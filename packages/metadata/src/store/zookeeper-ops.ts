/**
 * Translating store ops and stats to and from node-zookeeper-client: create modes, stats, op
 * validation (before anything is sent, so a bad op fails the whole multi with its index), and
 * transaction building.
 */
import zookeeper from 'node-zookeeper-client'
import type { Stat, Transaction } from 'node-zookeeper-client'
import { SluiceError } from '@sluice/protocol'
import { assertValidPath, type CreateMode, type NodeStat, type StoreOp } from './metadata-store.js'

export const MODES: Record<CreateMode, number> = {
  persistent: zookeeper.CreateMode.PERSISTENT,
  ephemeral: zookeeper.CreateMode.EPHEMERAL,
  'persistent-sequential': zookeeper.CreateMode.PERSISTENT_SEQUENTIAL,
  'ephemeral-sequential': zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
}

export function toStat(stat: Stat): NodeStat {
  const owner = stat.ephemeralOwner
  const ephemeral = Buffer.isBuffer(owner) && owner.some((b) => b !== 0)
  return {
    version: stat.version,
    numChildren: stat.numChildren,
    ...(ephemeral ? { ephemeralOwner: owner.toString('hex') } : {}),
  }
}

export function assertVersion(v: number): void {
  if (!Number.isInteger(v) || v < -1 || v > 0x7fffffff)
    throw new SluiceError('INVALID_ARGUMENT', `expected version ${v} must be -1 or a version`)
}

export function validateOp(op: StoreOp): void {
  if (op === null || typeof op !== 'object') throw new SluiceError('INVALID_ARGUMENT', 'a store op must be an object')
  assertValidPath(op.path)
  switch (op.type) {
    case 'create':
      if (op.path === '/') throw new SluiceError('META_NODE_EXISTS', 'the root always exists', { path: op.path })
      if (MODES[op.mode ?? 'persistent'] === undefined)
        throw new SluiceError('INVALID_ARGUMENT', `unknown create mode "${String(op.mode)}"`)
      return
    case 'delete':
      if (op.path === '/') throw new SluiceError('INVALID_ARGUMENT', 'the root cannot be deleted')
      assertVersion(op.version)
      return
    case 'set':
    case 'check':
      assertVersion(op.version)
      return
    default:
      throw new SluiceError('INVALID_ARGUMENT', `unknown store op ${JSON.stringify((op as { type?: unknown }).type)}`)
  }
}

/** Runs `fn`, re-throwing a SluiceError tagged with the op index as multi reports it. */
export function tagged<T>(i: number, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof SluiceError)
      throw new SluiceError(e.code, `op ${i}: ${e.message}`, { ...e.details, opIndex: i }, { cause: e })
    throw e
  }
}

/**
 * Adds one op to a transaction. node-zookeeper-client 1.1.3 turns version 0 into -1 in its
 * Transaction methods (`version || -1`), which would make "expect version 0" unconditional, so the
 * real version is written into the queued op afterwards.
 */
export function addOp(tx: Transaction, op: StoreOp): void {
  const queued = (tx as unknown as { ops: Array<{ version?: number }> }).ops
  switch (op.type) {
    case 'create':
      tx.create(op.path, op.data, MODES[op.mode ?? 'persistent'])
      return
    case 'set':
      tx.setData(op.path, op.data, op.version)
      break
    case 'delete':
      tx.remove(op.path, op.version)
      break
    case 'check':
      tx.check(op.path, op.version)
      break
  }
  queued[queued.length - 1]!.version = op.version
}
