/**
 * Storage tools for the storage-fault specs: a size-limited tmpfs the test mounts and unmounts
 * itself, filling a disk to the last byte, finding which data dir holds a partition, and the
 * batch layout of a segment file (Kafka's RecordBatch v2 framing, docs/design.md §3: 8-byte
 * baseOffset, 4-byte batchLength, then batchLength bytes) so a test can corrupt one batch on
 * purpose and know exactly what recovery must drop.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/**
 * Mounts a tmpfs of `sizeBytes` on a fresh directory and registers its unmount (lazy, so a
 * process still holding a file cannot keep it) and removal. Returns the reason instead when the
 * machine does not allow mounting (not root, no CAP_SYS_ADMIN): the caller skips visibly.
 */
export async function mountTmpfs(
  sizeBytes: number,
  cleanup: (fn: () => Promise<void>) => unknown,
): Promise<{ dir: string } | { skipReason: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-tmpfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    return { skipReason: `cannot mount a tmpfs here: ${String((err as Error).message).split('\n')[0]}` }
  }
  cleanup(async () => {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
    } catch {
      /* already gone */
    }
    await rm(dir, { recursive: true, force: true })
  })
  return { dir }
}

/** Appends 64 KiB chunks to `file` until the disk is full (bounded by `maxBytes`); returns the bytes written. */
export async function fillDisk(file: string, maxBytes = 1 << 30): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x5a)
  const fh = await open(file, 'a')
  let written = 0
  try {
    while (written < maxBytes) {
      try {
        const { bytesWritten } = await fh.write(chunk)
        written += bytesWritten
        if (bytesWritten < chunk.length) break
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break
        throw err
      }
    }
  } finally {
    await fh.close()
  }
  return written
}

/** Partitions of `topic` whose directory is in `dataDir`. */
export async function partitionsIn(dataDir: string, topic: string): Promise<number[]> {
  const names = await readdir(dataDir).catch(() => [] as string[])
  const out: number[] = []
  for (const n of names) {
    if (!n.startsWith(`${topic}-`)) continue
    const p = n.slice(topic.length + 1)
    if (/^\d+$/.test(p)) out.push(Number(p))
  }
  return out.sort((a, b) => a - b)
}

export interface SegmentFile {
  readonly path: string
  readonly sizeBytes: number
  /** Start position and size of every whole batch, in file order. */
  readonly batches: ReadonlyArray<{ position: number; sizeBytes: number }>
}

/** The segments of a partition directory, oldest first, with their batch boundaries. */
export async function segmentFiles(partitionDir: string): Promise<SegmentFile[]> {
  const names = (await readdir(partitionDir)).filter((n) => /^\d{20}\.log$/.test(n)).sort()
  const out: SegmentFile[] = []
  for (const name of names) {
    const file = path.join(partitionDir, name)
    const bytes = await readFile(file)
    const batches: Array<{ position: number; sizeBytes: number }> = []
    for (let pos = 0; pos + 12 <= bytes.length; ) {
      const size = 12 + bytes.readInt32BE(pos + 8)
      if (size < 61 || pos + size > bytes.length) break
      batches.push({ position: pos, sizeBytes: size })
      pos += size
    }
    out.push({ path: file, sizeBytes: (await stat(file)).size, batches })
  }
  return out
}

/** Flips one byte of a file in place. */
export async function flipByte(file: string, position: number): Promise<void> {
  const fh = await open(file, 'r+')
  try {
    const b = Buffer.alloc(1)
    await fh.read(b, 0, 1, position)
    b[0] = b[0]! ^ 0xff
    await fh.write(b, 0, 1, position)
  } finally {
    await fh.close()
  }
}

/** Pino JSON lines of a process's output, parsed (other lines skipped). */
export function jsonLines(lines: readonly string[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = []
  for (const l of lines) {
    if (!l.startsWith('{')) continue
    try {
      out.push(JSON.parse(l) as Record<string, unknown>)
    } catch {
      /* not JSON after all */
    }
  }
  return out
}
