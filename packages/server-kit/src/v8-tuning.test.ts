import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { SERVER_V8_FLAGS } from './v8-tuning.js'

/**
 * A function optimised for one object shape, then every object of that shape dropped and five
 * full collections run: prints whether the function is still optimised. The flags to apply come
 * as arguments, set at run time as tuneV8ForServer() sets them.
 */
const PROBE = `
const v8 = require('node:v8')
for (const flag of process.argv.slice(1)) v8.setFlagsFromString(flag)
class Shape { constructor(i) { this.x = i; this.y = i + 1 } }
function read(o) { return o.x + o.y }
function run(n) { let s = 0; for (let i = 0; i < n; i++) s += read(new Shape(i)); return s }
%PrepareFunctionForOptimization(read);
run(1000);
%OptimizeFunctionOnNextCall(read);
run(10);
const OPTIMIZED = 16
const before = (%GetOptimizationStatus(read) & OPTIMIZED) !== 0
for (let i = 0; i < 5; i++) globalThis.gc()
const after = (%GetOptimizationStatus(read) & OPTIMIZED) !== 0
process.stdout.write(JSON.stringify({ before, after }))
`

function probe(flags: readonly string[]): { before: boolean; after: boolean } {
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '-e', PROBE, ...flags], {
    encoding: 'utf8',
    timeout: 30_000,
  })
  return JSON.parse(out) as { before: boolean; after: boolean }
}

describe('the servers V8 flags', () => {
  it("keep optimised code whose objects' shapes had no live object through full collections", () => {
    // Without them V8 throws that code away (the deopt storm the flags exist for).
    expect(probe([])).toEqual({ before: true, after: false })
    expect(probe(SERVER_V8_FLAGS)).toEqual({ before: true, after: true })
  })
})
