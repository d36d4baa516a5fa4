/**
 * The latency anatomy's trace (issue 16): an opt-in record of when each hop of a record batch's
 * round happened, written by every process (producer, brokers, consumer) to its own file and
 * joined afterwards by the bench (bench/src/anatomy/).
 *
 * Off unless SLUICE_TRACE_DIR names a directory when the process starts. Call sites test the
 * exported constant first, so with tracing off a stamp costs one branch on a constant:
 *
 *     if (traceOn) traceHop('append-done', ctx.brokerId, topic, partition, first, last + 1n)
 *
 * and no clock read, allocation, closure or string is made. When on, each event is one text
 * line `<ns> <hop> <node> <topic> <partition> <from> <to>`: ns is process.hrtime.bigint()
 * (CLOCK_MONOTONIC on Linux, one clock for every process of the machine, so events of different
 * processes compare), node the broker the event concerns (-1: a client), [from, to) the offsets
 * it covers (a batch, a fetch answer, a high-watermark move). Lines wait in memory, at most
 * `maxPending` of them (later ones are counted as dropped, and the count is written), and are
 * written every `flushMs` by a timer and at exit, so the hot path never waits for the disk.
 *
 * The producer knows a batch's offsets only from the produce answer: it marks the batch object
 * when it is created and when it is sent (traceMark, a WeakMap), and writes both stamps once
 * the answer names the base offset (traceProduced).
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'

export type TraceHop =
  | 'producer-enqueue'
  | 'producer-sent'
  | 'producer-acked'
  | 'leader-received'
  | 'append-done'
  | 'follower-fetch-answered'
  | 'follower-response-received'
  | 'follower-append-done'
  | 'follower-fetch-received'
  | 'hw-advanced'
  | 'produce-answered'
  | 'consumer-fetch-answered'
  | 'consumer-response-received'
  | 'consumer-delivered'

export interface TraceWriterOptions {
  readonly file: string
  /** Lines kept in memory between flushes; beyond it events are dropped and counted. */
  readonly maxPending?: number
  /** Flush period; 0 flushes only on flush() (tests). */
  readonly flushMs?: number
}

/** Buffers trace lines and appends them to one file. */
export class TraceWriter {
  private pending: string[] = []
  private dropped = 0
  private readonly maxPending: number
  private readonly timer: NodeJS.Timeout | undefined

  constructor(private readonly options: TraceWriterOptions) {
    this.maxPending = options.maxPending ?? 200_000
    mkdirSync(path.dirname(options.file), { recursive: true })
    appendFileSync(options.file, `# sluice trace v1 pid ${process.pid} ${path.basename(process.argv[1] ?? '?')}\n`)
    const flushMs = options.flushMs ?? 100
    if (flushMs > 0) {
      this.timer = setInterval(() => this.flush(), flushMs)
      this.timer.unref()
    }
  }

  event(ns: bigint, hop: TraceHop, node: number, topic: string, partition: number, from: bigint, to: bigint): void {
    if (this.pending.length >= this.maxPending) {
      this.dropped++
      return
    }
    this.pending.push(`${ns} ${hop} ${node} ${topic} ${partition} ${from} ${to}\n`)
  }

  /**
   * Writes what is pending (synchronously: a few tens of kB every 100 ms, off the hot path). A
   * failed write loses those events, never the process.
   */
  flush(): void {
    if (this.pending.length === 0 && this.dropped === 0) return
    let text = this.pending.join('')
    this.pending = []
    if (this.dropped > 0) text += `# dropped ${this.dropped}\n`
    this.dropped = 0
    try {
      appendFileSync(this.options.file, text)
    } catch {
      // The trace is a diagnostic: a missing directory or a full disk must not stop the broker.
    }
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.flush()
  }
}

const TRACE_DIR = process.env.SLUICE_TRACE_DIR
/** Whether this process traces; fixed at start. Test it before calling any trace function. */
export const traceOn: boolean = TRACE_DIR !== undefined && TRACE_DIR !== ''

const writer: TraceWriter | undefined = traceOn
  ? new TraceWriter({ file: path.join(TRACE_DIR!, `trace-${process.pid}.txt`) })
  : undefined
if (writer !== undefined) process.once('exit', () => writer.close())

const marks: WeakMap<object, [bigint, bigint]> | undefined = traceOn ? new WeakMap() : undefined

/** The trace clock (ns); only when traceOn. */
export function traceNow(): bigint {
  return process.hrtime.bigint()
}

/** One event covering offsets [from, to), at `ns` (default: now). */
export function traceHop(
  hop: TraceHop,
  node: number,
  topic: string,
  partition: number,
  from: bigint,
  to: bigint,
  ns: bigint = process.hrtime.bigint(),
): void {
  writer?.event(ns, hop, node, topic, partition, from, to)
}

/** Producer: stamps a batch object as created (slot 0) or sent (slot 1); the latest send wins. */
export function traceMark(batch: object, slot: 0 | 1): void {
  if (marks === undefined) return
  let m = marks.get(batch)
  if (m === undefined) {
    m = [-1n, -1n]
    marks.set(batch, m)
  }
  m[slot] = process.hrtime.bigint()
}

/** Producer: the answer gave `batch` its base offset; writes its enqueue, sent and acked stamps. */
export function traceProduced(
  batch: { readonly topic: string; readonly partition: number; readonly recordCount: number },
  baseOffset: bigint,
): void {
  const now = process.hrtime.bigint()
  const m = marks?.get(batch)
  const { topic, partition } = batch
  const to = baseOffset + BigInt(Math.max(1, batch.recordCount))
  if (m !== undefined && m[0] >= 0n) traceHop('producer-enqueue', -1, topic, partition, baseOffset, to, m[0])
  if (m !== undefined && m[1] >= 0n) traceHop('producer-sent', -1, topic, partition, baseOffset, to, m[1])
  traceHop('producer-acked', -1, topic, partition, baseOffset, to, now)
}

/**
 * The exclusive end offset of stored batches in `records` (v2 batch headers: base offset at 0,
 * length at 8, last offset delta at 23), or `fallback` when there are none.
 */
export function batchesEndOffset(records: Buffer, fallback: bigint): bigint {
  let pos = 0
  let end = fallback
  while (pos + 27 <= records.length) {
    end = records.readBigInt64BE(pos) + BigInt(records.readInt32BE(pos + 23)) + 1n
    pos += 12 + records.readInt32BE(pos + 8)
  }
  return end
}

/** Writes what is pending now (tests; the timer and exit do it otherwise). */
export function traceFlush(): void {
  writer?.flush()
}
