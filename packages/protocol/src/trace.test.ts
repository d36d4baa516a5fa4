import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { encodeRecordBatch } from './record-batch/record-encoder.js'
import { batchesEndOffset, TraceWriter } from './trace.js'

let dir: string
const savedDir = process.env.SLUICE_TRACE_DIR

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sluice-trace-test-'))
})

afterEach(async () => {
  if (savedDir === undefined) delete process.env.SLUICE_TRACE_DIR
  else process.env.SLUICE_TRACE_DIR = savedDir
  vi.resetModules()
  await rm(dir, { recursive: true, force: true })
})

const lines = async (file: string): Promise<string[]> =>
  (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '')

describe('TraceWriter', () => {
  it('writes a header, then one line per event in the documented format, on flush', async () => {
    const file = path.join(dir, 'sub', 't.txt')
    const w = new TraceWriter({ file, flushMs: 0 })
    w.event(123n, 'append-done', 2, 'orders', 5, 10n, 14n)
    expect(await lines(file)).toHaveLength(1) // only the header until a flush
    w.flush()
    const [header, event] = await lines(file)
    expect(header).toMatch(/^# sluice trace v1 pid \d+ /)
    expect(event).toBe('123 append-done 2 orders 5 10 14')
    w.close()
  })

  it('keeps at most maxPending events between flushes and writes how many it dropped', async () => {
    const file = path.join(dir, 't.txt')
    const w = new TraceWriter({ file, flushMs: 0, maxPending: 2 })
    for (let i = 0; i < 5; i++) w.event(BigInt(i), 'hw-advanced', 1, 't', 0, BigInt(i), BigInt(i + 1))
    w.flush()
    expect((await lines(file)).slice(1)).toEqual(['0 hw-advanced 1 t 0 0 1', '1 hw-advanced 1 t 0 1 2', '# dropped 3'])
    // After a flush the buffer takes events again.
    w.event(9n, 'hw-advanced', 1, 't', 0, 5n, 6n)
    w.close()
    expect((await lines(file)).slice(4)).toEqual(['9 hw-advanced 1 t 0 5 6'])
  })

  it('never throws when the file cannot be written (a trace must not take a process down)', async () => {
    const file = path.join(dir, 'gone', 't.txt')
    const w = new TraceWriter({ file, flushMs: 0 })
    await rm(path.join(dir, 'gone'), { recursive: true })
    w.event(1n, 'append-done', 1, 't', 0, 0n, 1n)
    expect(() => w.close()).not.toThrow()
  })

  it('flushes on its timer', async () => {
    const file = path.join(dir, 't.txt')
    const w = new TraceWriter({ file, flushMs: 10 })
    w.event(1n, 'producer-acked', -1, 't', 0, 0n, 1n)
    await vi.waitFor(async () => expect(await lines(file)).toHaveLength(2), { timeout: 5000, interval: 10 })
    w.close()
  })
})

describe('the process trace (SLUICE_TRACE_DIR)', () => {
  it('is off without the variable: traceOn is false and the trace functions write nothing', async () => {
    delete process.env.SLUICE_TRACE_DIR
    vi.resetModules()
    const t = await import('./trace.js')
    expect(t.traceOn).toBe(false)
    const batch = { topic: 't', partition: 0, recordCount: 1 }
    t.traceMark(batch, 0)
    t.traceProduced(batch, 0n)
    t.traceHop('append-done', 1, 't', 0, 0n, 1n)
    t.traceFlush()
    expect(await readdir(dir)).toEqual([])
  })

  it('is on with the variable: every process writes trace-<pid>.txt, producer stamps keyed by the base offset', async () => {
    process.env.SLUICE_TRACE_DIR = dir
    vi.resetModules()
    const t = await import('./trace.js')
    expect(t.traceOn).toBe(true)
    const batch = { topic: 'orders', partition: 3, recordCount: 4 }
    t.traceMark(batch, 0)
    t.traceMark(batch, 1)
    t.traceProduced(batch, 40n)
    t.traceHop('leader-received', 2, 'orders', 3, 40n, 44n, 7n)
    t.traceFlush()
    const events = (await lines(path.join(dir, `trace-${process.pid}.txt`))).slice(1).map((l) => l.split(' '))
    expect(events.map((e) => e.slice(1))).toEqual([
      ['producer-enqueue', '-1', 'orders', '3', '40', '44'],
      ['producer-sent', '-1', 'orders', '3', '40', '44'],
      ['producer-acked', '-1', 'orders', '3', '40', '44'],
      ['leader-received', '2', 'orders', '3', '40', '44'],
    ])
    const ns = events.map((e) => BigInt(e[0]!))
    expect(ns[0]! <= ns[1]! && ns[1]! <= ns[2]!).toBe(true)
    expect(ns[3]).toBe(7n)
  })
})

describe('batchesEndOffset', () => {
  it('is the exclusive end of the last stored batch, or the fallback for no batches', () => {
    const a = encodeRecordBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b') }])
    const b = encodeRecordBatch([{ value: Buffer.from('c') }, { value: Buffer.from('d') }, { value: Buffer.from('e') }])
    a.writeBigInt64BE(100n, 0)
    b.writeBigInt64BE(102n, 0)
    expect(batchesEndOffset(Buffer.concat([a, b]), 0n)).toBe(105n)
    expect(batchesEndOffset(a, 0n)).toBe(102n)
    expect(batchesEndOffset(Buffer.alloc(0), 9n)).toBe(9n)
  })
})
