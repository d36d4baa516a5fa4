/**
 * A task's checkpoint: for each changelog partition of its persistent stores, the offset after
 * the last record the local store files are known to hold (acknowledged and flushed before the
 * file was written). A restart restores from there instead of from the changelog's beginning.
 * In-memory stores are not checkpointed: a new process starts them empty.
 *
 * The file is `<task dir>/.checkpoint`, JSON, replaced atomically (write a temporary file, then
 * rename), so a crash leaves the old checkpoint or the new one, never half of one. The state
 * stores' branch may ship its own checkpoint helper; this small one is the runtime's until then.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const CHECKPOINT_FILE = '.checkpoint'

export interface CheckpointEntry {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
}

interface CheckpointJson {
  version: 1
  offsets: Array<{ topic: string; partition: number; offset: string }>
}

export async function writeCheckpoint(taskDir: string, entries: readonly CheckpointEntry[]): Promise<void> {
  await mkdir(taskDir, { recursive: true })
  const json: CheckpointJson = {
    version: 1,
    offsets: entries.map((e) => ({ topic: e.topic, partition: e.partition, offset: e.offset.toString() })),
  }
  const tmp = join(taskDir, `${CHECKPOINT_FILE}.tmp`)
  await writeFile(tmp, `${JSON.stringify(json)}\n`)
  await rename(tmp, join(taskDir, CHECKPOINT_FILE))
}

/** The checkpointed offsets; empty when there is no file. Throws on a file it cannot read (the caller decides). */
export async function readCheckpoint(taskDir: string): Promise<CheckpointEntry[]> {
  let text: string
  try {
    text = await readFile(join(taskDir, CHECKPOINT_FILE), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const json = JSON.parse(text) as CheckpointJson
  if (json?.version !== 1 || !Array.isArray(json.offsets)) throw new Error(`unknown checkpoint format in ${taskDir}`)
  return json.offsets.map((o) => {
    if (typeof o.topic !== 'string' || !Number.isInteger(o.partition) || !/^\d+$/.test(o.offset)) {
      throw new Error(`malformed checkpoint entry in ${taskDir}: ${JSON.stringify(o)}`)
    }
    return { topic: o.topic, partition: o.partition, offset: BigInt(o.offset) }
  })
}
