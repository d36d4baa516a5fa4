/**
 * Probe: a small positional write to the page cache (no fsync), and a read of the bytes just
 * written, the floor of a broker's append (the log writes with FileHandle.write at a position,
 * packages/broker/src/log/io/file-io.ts) and of a fetch served from a fresh segment. Two APIs:
 * fs.promises FileHandle.write / read, which hand the call to libuv's thread pool and resume
 * this thread when it completes (a thread-pool round trip: two thread wake-ups), and
 * fs.writeSync / readSync on the same descriptor, which block this thread for the system call
 * only. Each operation's own duration is measured (from the call to its result), one at a time,
 * at the probe paces. The file lives under os.tmpdir(), where the bench cluster keeps its logs;
 * positions wrap at 16 MiB so the probe never fills the disk.
 */
import { writeSync, readSync } from 'node:fs'
import { mkdtemp, open, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { type Pace, runPaced } from './paced-loop.js'
import type { ProbeResult } from './probe-result.js'
import { sampleStats } from './probe-stats.js'

export const FILE_SIZES = [100, 1024, 16 * 1024]
const WRAP_BYTES = 16 * 1024 * 1024

type Api = 'FileHandle (thread pool)' | 'writeSync/readSync'

export async function probeFileIo(
  paces: readonly Pace[],
  sizes: readonly number[] = FILE_SIZES,
  dir: string = os.tmpdir(),
): Promise<ProbeResult[]> {
  const tmp = await mkdtemp(path.join(dir, 'sluice-probe-'))
  const fh = await open(path.join(tmp, 'segment.log'), 'w+')
  const results: ProbeResult[] = []
  try {
    for (const api of ['FileHandle (thread pool)', 'writeSync/readSync'] as const) {
      for (const bytes of sizes) {
        for (const pace of paces) {
          const s = await series(fh, api, pace, bytes)
          const base = { variant: api, leg: 'operation' as const, ratePerSec: pace.ratePerSec, bytes }
          results.push(
            { ...base, probe: 'file-write', ...sampleStats(s.write) },
            { ...base, probe: 'file-read', ...sampleStats(s.read) },
          )
        }
      }
    }
  } finally {
    await fh.close()
    await rm(tmp, { recursive: true, force: true })
  }
  return results
}

async function series(
  fh: Awaited<ReturnType<typeof open>>,
  api: Api,
  pace: Pace,
  bytes: number,
): Promise<{ write: number[]; read: number[] }> {
  const data = Buffer.alloc(bytes, 0x5a)
  const back = Buffer.alloc(bytes)
  const out = { write: [] as number[], read: [] as number[] }
  let position = 0
  await runPaced(pace, (_seq, measured) => {
    const at = position
    position = (position + bytes) % WRAP_BYTES
    if (api === 'writeSync/readSync') {
      const t0 = performance.now()
      writeSync(fh.fd, data, 0, bytes, at)
      const t1 = performance.now()
      readSync(fh.fd, back, 0, bytes, at)
      const t2 = performance.now()
      if (measured) {
        out.write.push(t1 - t0)
        out.read.push(t2 - t1)
      }
      return undefined
    }
    return (async () => {
      const t0 = performance.now()
      await fh.write(data, 0, bytes, at)
      const t1 = performance.now()
      await fh.read(back, 0, bytes, at)
      const t2 = performance.now()
      if (measured) {
        out.write.push(t1 - t0)
        out.read.push(t2 - t1)
      }
    })()
  })
  return out
}
