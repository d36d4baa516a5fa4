import fs from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { LogManager } from '../manager/log-manager.js'
import { appendLeader, captureLogger, readAll, testConfig, type ReadRecord } from '../__fixtures__/log-test-env.js'
import { keyedBatch, makeTempDir } from '../__fixtures__/test-batches.js'

type Write = ReadonlyArray<readonly [string, string | null]>

const writeArb: fc.Arbitrary<Write> = fc.array(
  fc.tuple(
    fc.integer({ min: 0, max: 7 }).map((k) => `k${k}`),
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
  ),
  { minLength: 1, maxLength: 3 },
)

function applyTo(
  model: Map<string, string>,
  records: Iterable<{ key: string | null; value: string | null }>,
): Map<string, string> {
  for (const r of records) {
    if (r.key === null) continue
    if (r.value === null) model.delete(r.key)
    else model.set(r.key, r.value)
  }
  return model
}

describe('LogCleaner model property', () => {
  it('a compacted log read from the start yields the latest value per key, as a plain Map does', async () => {
    const root = await makeTempDir('sluice-cleaner-prop-')
    onTestFinished(() => fs.rm(root, { recursive: true, force: true }))
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(writeArb, { minLength: 4, maxLength: 36 }),
        fc.array(fc.nat({ max: 35 }), { maxLength: 3 }),
        fc.constantFrom(24 * 3, 24 * 40, 1 << 20),
        fc.constantFrom<'none' | 'gzip'>('none', 'gzip'),
        async (writes, cleanAt, dedupeBufferBytes, compression) => {
          const dataDir = path.join(root, `run-${run++}`)
          const clock = new ManualClock(1_000_000)
          const manager = await LogManager.open({ dataDir, logger: captureLogger().logger, fileDeleteDelayMs: 0 })
          try {
            const deleteRetentionMs = 500
            const log = await manager.getOrCreateLog(
              'p',
              0,
              testConfig({ cleanupPolicy: 'compact', segmentBytes: 250, indexIntervalBytes: 40, deleteRetentionMs }),
            )
            const cleaner = manager.createCleaner({ clock, dedupeBufferBytes, maxPasses: 200 })
            const model = new Map<string, string>()
            const cleanPoints = new Set(cleanAt)
            for (let i = 0; i < writes.length; i++) {
              const w = writes[i]!
              await appendLeader(log, [keyedBatch(w, BigInt(clock.nowMs()), { compression })])
              applyTo(
                model,
                w.map(([key, value]) => ({ key, value })),
              )
              if (cleanPoints.has(i)) {
                await cleaner.clean(log, log.logEndOffset, { force: true })
                expect(applyTo(new Map(), (await readAll(log)).records)).toEqual(model)
              }
              clock.advance(10)
            }
            const original = new Map<bigint, ReadRecord>()
            let o = 0n
            for (const w of writes) for (const [key, value] of w) original.set(o++, { offset: o - 1n, key, value })
            // First cleaning stamps horizons on kept tombstones; once past them, they go.
            await cleaner.clean(log, log.logEndOffset, { force: true })
            clock.advance(deleteRetentionMs + 1)
            await cleaner.clean(log, log.logEndOffset, { force: true })
            const { records } = await readAll(log)
            expect(applyTo(new Map(), records)).toEqual(model)
            for (const r of records) expect(original.get(r.offset)).toEqual(r)
            const activeBase = log.segmentBaseOffsets.at(-1)!
            const closed = records.filter((r) => r.offset < activeBase)
            expect(closed.filter((r) => r.value === null)).toEqual([])
            expect(new Set(closed.map((r) => r.key)).size).toBe(closed.length)
          } finally {
            await manager.close()
            await fs.rm(dataDir, { recursive: true, force: true })
          }
        },
      ),
      { numRuns: 15 },
    )
  })
})
