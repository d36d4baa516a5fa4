/**
 * Maps what node-zookeeper-client throws to the SluiceError codes the embedded backend uses, so
 * callers cannot tell the backends apart by their errors:
 *
 *   NO_NODE -> META_NO_NODE          NODE_EXISTS -> META_NODE_EXISTS    BAD_VERSION -> META_BAD_VERSION
 *   NOT_EMPTY -> META_NOT_EMPTY      NO_CHILDREN_FOR_EPHEMERALS -> INVALID_ARGUMENT
 *   CONNECTION_LOSS, OPERATION_TIMEOUT, anything else from the server -> METADATA_UNAVAILABLE (retriable)
 *   SESSION_EXPIRED / a gone session -> META_SESSION_EXPIRED on a client session's connection,
 *     METADATA_UNAVAILABLE on the store's own connection (the store as a whole must be reopened)
 *   an assertion of the library (bad path, data over 1 MiB) -> INVALID_ARGUMENT
 */
import zookeeper from 'node-zookeeper-client'
import { SluiceError } from '@sluice/protocol'
import { ZkSessionGone } from './zookeeper-connection.js'

const { Exception } = zookeeper

export interface ErrorContext {
  readonly path: string
  /** Which session's connection ran the request: 'store' = the store's own. */
  readonly connection: 'store' | 'session'
  readonly expectedVersion?: number
}

function zkCode(e: unknown): number | undefined {
  if (e instanceof Exception) return e.getCode()
  return undefined
}

export function toSluiceError(e: unknown, ctx: ErrorContext): SluiceError {
  if (e instanceof SluiceError) return e
  const { path } = ctx
  if (e instanceof ZkSessionGone) return sessionGone(ctx, e.how, e)
  const code = zkCode(e)
  switch (code) {
    case undefined: {
      const message = e instanceof Error ? e.message : String(e)
      if (e instanceof Error && e.name === 'AssertionError')
        return new SluiceError('INVALID_ARGUMENT', `${path}: ${message}`, { path }, { cause: e })
      return new SluiceError(
        'METADATA_UNAVAILABLE',
        `ZooKeeper request on ${path} failed: ${message}`,
        { path },
        { cause: e },
      )
    }
    case Exception.NO_NODE:
      return new SluiceError('META_NO_NODE', `no node ${path}`, { path }, { cause: e })
    case Exception.NODE_EXISTS:
      return new SluiceError('META_NODE_EXISTS', `node ${path} already exists`, { path }, { cause: e })
    case Exception.BAD_VERSION:
      return new SluiceError(
        'META_BAD_VERSION',
        `${path} is not at version ${String(ctx.expectedVersion ?? '?')}`,
        { path, ...(ctx.expectedVersion !== undefined ? { expected: ctx.expectedVersion } : {}) },
        { cause: e },
      )
    case Exception.NOT_EMPTY:
      return new SluiceError('META_NOT_EMPTY', `${path} has children`, { path }, { cause: e })
    case Exception.NO_CHILDREN_FOR_EPHEMERALS:
      return new SluiceError(
        'INVALID_ARGUMENT',
        `the parent of ${path} is ephemeral and cannot have children`,
        { path },
        { cause: e },
      )
    case Exception.BAD_ARGUMENTS:
      return new SluiceError('INVALID_ARGUMENT', `ZooKeeper rejected the arguments for ${path}`, { path }, { cause: e })
    case Exception.SESSION_EXPIRED:
      return sessionGone(ctx, 'expired', e)
    default:
      return new SluiceError(
        'METADATA_UNAVAILABLE',
        `ZooKeeper request on ${path} failed: ${String(e)}`,
        { path, zkCode: code },
        { cause: e },
      )
  }
}

function sessionGone(ctx: ErrorContext, how: string, cause: unknown): SluiceError {
  if (ctx.connection === 'session') {
    return new SluiceError(
      'META_SESSION_EXPIRED',
      `the session owning ${ctx.path} is ${how}`,
      { path: ctx.path },
      { cause },
    )
  }
  return new SluiceError(
    'METADATA_UNAVAILABLE',
    `the metadata store's ZooKeeper session is ${how}; the store must be reopened`,
    { path: ctx.path },
    { cause },
  )
}

/** A multi's failing op: the first result whose error is not OK (later ones say RUNTIME_INCONSISTENCY). */
export function failedOpIndex(results: unknown): number {
  if (!Array.isArray(results)) return -1
  return results.findIndex(
    (r) => typeof (r as { err?: unknown }).err === 'number' && (r as { err: number }).err !== Exception.OK,
  )
}
