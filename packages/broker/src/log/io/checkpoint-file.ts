/**
 * Kafka's text checkpoint format (docs/kafka-facts.md §2.1, `CheckpointFile.java`):
 *   line 1: version (0)      line 2: entry count      then one entry per line, fields split by ' '
 * Written to `<file>.tmp`, fsynced, renamed over the old file and the directory fsynced, so a
 * reader sees either the old or the new content, never a mix. A file that does not parse is
 * reported as corrupt; callers fall back to the safe default (e.g. recovery point 0).
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { TEMP_SUFFIX } from '../segment/log-files.js'

export const CHECKPOINT_VERSION = 0

export type CheckpointRead =
  | { kind: 'missing' }
  | { kind: 'corrupt'; reason: string }
  | { kind: 'ok'; entries: string[][] }

export async function readCheckpointFile(file: string, fieldsPerEntry: number): Promise<CheckpointRead> {
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' }
    throw err
  }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  if (lines[0] !== String(CHECKPOINT_VERSION))
    return { kind: 'corrupt', reason: `unknown version line ${JSON.stringify(lines[0])}` }
  const count = Number(lines[1])
  if (!Number.isSafeInteger(count) || count < 0 || lines.length !== count + 2) {
    return {
      kind: 'corrupt',
      reason: `count line ${JSON.stringify(lines[1])} does not match ${lines.length - 2} entries`,
    }
  }
  const entries: string[][] = []
  for (const line of lines.slice(2)) {
    const fields = line.split(' ')
    if (fields.length !== fieldsPerEntry || fields.some((f) => f === '')) {
      return { kind: 'corrupt', reason: `malformed entry ${JSON.stringify(line)}` }
    }
    entries.push(fields)
  }
  return { kind: 'ok', entries }
}

export async function writeCheckpointFile(file: string, entries: ReadonlyArray<readonly string[]>): Promise<void> {
  const body = `${[String(CHECKPOINT_VERSION), String(entries.length), ...entries.map((e) => e.join(' '))].join('\n')}\n`
  const temp = file + TEMP_SUFFIX
  const fh = await fs.open(temp, 'w')
  try {
    await fh.writeFile(body, 'utf8')
    await fh.sync()
  } finally {
    await fh.close()
  }
  await fs.rename(temp, file)
  await fsyncDir(path.dirname(file))
}

/** Makes a rename or unlink in `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Parses a non-negative decimal int64 field; undefined if it is not one. */
export function parseOffsetField(text: string): bigint | undefined {
  if (!/^\d{1,19}$/.test(text)) return undefined
  const v = BigInt(text)
  return v <= 0x7fffffffffffffffn ? v : undefined
}
