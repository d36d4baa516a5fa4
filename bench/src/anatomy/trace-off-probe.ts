/**
 * `node bench/dist/anatomy/trace-off-probe.js`: what a latency-anatomy stamp costs with tracing
 * off (SLUICE_TRACE_DIR unset), in plain Node ESM as the servers run it: the same loop with and
 * without an `if (traceOn) traceHop(...)` per iteration, alternated, median of the rounds. Not a
 * vitest benchmark on purpose: vitest's module transform turns an imported constant into a
 * getter call, which would measure the transform instead of the stamp.
 */
import { traceHop, traceOn } from '@sluice/protocol'

let sink = 0

function plain(n: number, topic: string): void {
  for (let i = 0; i < n; i++) sink = (sink + i + topic.length) | 0
}

function guarded(n: number, topic: string): void {
  for (let i = 0; i < n; i++) {
    sink = (sink + i + topic.length) | 0
    if (traceOn) traceHop('append-done', 1, topic, i, 0n, 1n)
  }
}

function nsPerIteration(f: (n: number, topic: string) => void, n: number): number {
  const t = process.hrtime.bigint()
  f(n, 't')
  return Number(process.hrtime.bigint() - t) / n
}

const N = 5_000_000
const rounds: Record<string, number[]> = { plain: [], guarded: [] }
for (let r = 0; r < 12; r++) {
  const a = nsPerIteration(plain, N)
  const b = nsPerIteration(guarded, N)
  if (r >= 2) {
    rounds.plain!.push(a)
    rounds.guarded!.push(b)
  }
}
const median = (v: number[]): number => [...v].sort((x, y) => x - y)[v.length >> 1]!
console.log(`tracing ${traceOn ? 'ON (unset SLUICE_TRACE_DIR to measure the off path)' : 'off'}`)
console.log(`loop without a stamp:        ${median(rounds.plain!).toFixed(2)} ns per iteration (median of 10 rounds)`)
console.log(`loop with one guarded stamp: ${median(rounds.guarded!).toFixed(2)} ns per iteration (median of 10 rounds)`)
if (sink === 42) console.log('') // keeps the loops' work observable
