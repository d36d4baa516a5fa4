import { describe, expect, it, onTestFinished } from 'vitest'
import { type IdleCandidate, SWEEPS_PER_IDLE, startIdleSweep } from './idle-sweep.js'

class Candidate implements IdleCandidate {
  activity = 0
  busy = false
  closed = 0
  closeIdle(): void {
    this.closed += 1
  }
}

/** A sweep whose timer never fires within the test (an hour's idle period): the test calls sweep(). */
function manualSweep(connections: Iterable<IdleCandidate>) {
  const sweep = startIdleSweep(connections, 3_600_000)
  onTestFinished(() => sweep.stop())
  return sweep
}

describe('the idle sweep', () => {
  it('closes a connection whose activity has not moved for a whole idle period, and not before', () => {
    const c = new Candidate()
    const sweep = manualSweep([c])
    sweep.sweep() // first sight
    for (let i = 1; i < SWEEPS_PER_IDLE; i++) sweep.sweep()
    expect(c.closed).toBe(0)
    sweep.sweep()
    expect(c.closed).toBe(1)
  })

  it('starts counting again after any read or write', () => {
    const c = new Candidate()
    const sweep = manualSweep([c])
    sweep.sweep()
    for (let i = 1; i < SWEEPS_PER_IDLE; i++) sweep.sweep()
    c.activity += 1
    sweep.sweep()
    for (let i = 1; i < SWEEPS_PER_IDLE; i++) sweep.sweep()
    expect(c.closed).toBe(0)
    sweep.sweep()
    expect(c.closed).toBe(1)
  })

  it('never closes a connection with a request in flight, and counts its quiet from its answer', () => {
    const c = new Candidate()
    c.busy = true
    const sweep = manualSweep([c])
    for (let i = 0; i < SWEEPS_PER_IDLE * 3; i++) sweep.sweep()
    expect(c.closed).toBe(0)
    c.busy = false
    c.activity += 1 // the answer written
    for (let i = 0; i < SWEEPS_PER_IDLE; i++) sweep.sweep()
    expect(c.closed).toBe(0)
    sweep.sweep()
    expect(c.closed).toBe(1)
  })

  it('sweeps connections added after it started, on its own timer', async () => {
    const connections = new Set<Candidate>()
    const sweep = startIdleSweep(connections, 40)
    onTestFinished(() => sweep.stop())
    const c = new Candidate()
    connections.add(c)
    const deadline = Date.now() + 10_000
    while (c.closed === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(c.closed).toBeGreaterThan(0)
  })
})
