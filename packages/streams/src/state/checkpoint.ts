/**
 * The task's checkpoint file: for each store of a task, the changelog offset its flushed state
 * contains (the next offset to restore from). The runtime writes it after a flush and a commit,
 * and reads it on start so a restore replays only the changelog's tail.
 *
 * The file is `<task dir>/.checkpoint`: one line of JSON (version and offsets as decimal
 * strings, since offsets are 64-bit), then one line with the SHA-256 of that JSON, so a torn or
 * edited file is told from a good one. It is written atomically: a temp file, fsync, rename
 * over the old one, fsync of the directory. A missing or corrupt file is never an error: the
 * read says so (and logs a corrupt one) and the stores restore from the changelog's beginning.
 */
import { createHash } from 'node:crypto'
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '@sluice/client'
import { StreamsError } from '../errors.js'

export const CHECKPOINT_FILE = '.checkpoint'
const CHECKPOINT_VERSION = 1

export type CheckpointStatus = 'ok' | 'missing' | 'corrupt'

export interface CheckpointRead {
  /** Store name to changelog offset; empty unless status is 'ok'. */
  readonly offsets: Map<string, bigint>
  /** 'missing' and 'corrupt' both mean: restore every store from the beginning. */
  readonly status: CheckpointStatus
  /** Why a file was taken as corrupt. */
  readonly reason?: string
}

export function checkpointPath(taskDir: string): string {
  return join(taskDir, CHECKPOINT_FILE)
}

/** Replaces the task's checkpoint with `offsets`; throws StreamsError on bad input or a failed write. */
export function writeCheckpoint(taskDir: string, offsets: ReadonlyMap<string, bigint>): void {
  const body: Record<string, string> = {}
  for (const [store, offset] of offsets) {
    if (typeof store !== 'string' || store.length === 0) {
      throw new StreamsError('INVALID_ARGUMENT', 'a checkpoint entry needs a store name')
    }
    if (typeof offset !== 'bigint' || offset < 0n) {
      throw new StreamsError('INVALID_ARGUMENT', `checkpoint offset of store '${store}' must be a bigint >= 0`)
    }
    body[store] = offset.toString()
  }
  const json = JSON.stringify({ version: CHECKPOINT_VERSION, offsets: body })
  const text = `${json}\n${sha256(json)}\n`
  const path = checkpointPath(taskDir)
  const temp = `${path}.tmp`
  try {
    const fd = openSync(temp, 'w')
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, path)
    syncDirectory(taskDir)
  } catch (cause) {
    rmSync(temp, { force: true })
    throw new StreamsError('STORE_IO', `cannot write the checkpoint in ${taskDir}: ${String(cause)}`, { cause })
  }
}

/** Reads the task's checkpoint; never throws (missing or corrupt: restore from the beginning). */
/** `logger`: where a corrupt file is reported (none: silent, as the SDK's default). */
export function readCheckpoint(taskDir: string, logger?: Logger): CheckpointRead {
  const path = checkpointPath(taskDir)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { offsets: new Map(), status: 'missing' }
    return corrupt(path, `unreadable: ${String(cause)}`, logger)
  }
  const [json, digest, ...rest] = text.split('\n')
  if (json === undefined || digest === undefined || rest.some((line) => line.length > 0)) {
    return corrupt(path, 'not two lines', logger)
  }
  if (sha256(json) !== digest) return corrupt(path, 'checksum mismatch', logger)
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    return corrupt(path, 'not JSON', logger)
  }
  const { version, offsets } = (parsed ?? {}) as { version?: unknown; offsets?: unknown }
  if (version !== CHECKPOINT_VERSION) return corrupt(path, `unknown version ${String(version)}`, logger)
  if (typeof offsets !== 'object' || offsets === null || Array.isArray(offsets)) {
    return corrupt(path, 'no offsets object', logger)
  }
  const result = new Map<string, bigint>()
  for (const [store, offset] of Object.entries(offsets)) {
    if (typeof offset !== 'string' || !/^\d+$/.test(offset)) return corrupt(path, `bad offset for '${store}'`, logger)
    result.set(store, BigInt(offset))
  }
  return { offsets: result, status: 'ok' }
}

/** Removes the checkpoint (a task closed without a clean flush must not claim its stores' state). */
export function removeCheckpoint(taskDir: string): void {
  rmSync(checkpointPath(taskDir), { force: true })
}

function corrupt(path: string, reason: string, logger: Logger | undefined): CheckpointRead {
  logger?.warn({ path, reason }, 'corrupt checkpoint file: its stores restore from the beginning of their changelogs')
  return { offsets: new Map(), status: 'corrupt', reason }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Makes the rename durable: the directory entry is what a crash would otherwise lose. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
