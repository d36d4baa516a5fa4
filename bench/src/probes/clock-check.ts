/**
 * The probes' one-way times subtract a stamp taken in one process from a stamp taken in
 * another. That is sound only if both read the same clock: process.hrtime.bigint() is libuv's
 * uv_hrtime(), which on Linux reads clock_gettime(CLOCK_MONOTONIC), one clock for the whole
 * machine (not per process), so the stamps compare. This file checks the claim rather than
 * trusting it: the parent stamps, asks the peer for its clock over IPC, and stamps again; the
 * peer's reading must fall inside the parent's bracket every time, which bounds any offset
 * between the two clocks by the narrowest bracket. The TCP probe adds a tighter bound: the
 * smallest one-way time in each direction must both be positive (an offset would shorten one
 * direction by as much as it lengthens the other).
 */
import type { PeerHandle } from './peer-launch.js'

export interface Bracket {
  readonly beforeNs: bigint
  readonly peerNs: bigint
  readonly afterNs: bigint
}

/** Counts peer readings outside their bracket and finds the narrowest bracket (µs). Pure. */
export function judgeBrackets(brackets: readonly Bracket[]): { violations: number; narrowestBracketUs: number } {
  let violations = 0
  let narrowest = Number.POSITIVE_INFINITY
  for (const b of brackets) {
    if (b.peerNs < b.beforeNs || b.peerNs > b.afterNs) violations++
    narrowest = Math.min(narrowest, Number(b.afterNs - b.beforeNs) / 1000)
  }
  return { violations, narrowestBracketUs: Math.round(narrowest * 10) / 10 }
}

export async function bracketPeerClock(peer: PeerHandle, samples = 50): Promise<Bracket[]> {
  const out: Bracket[] = []
  for (let i = 0; i < samples; i++) {
    const beforeNs = process.hrtime.bigint()
    const peerNs = await peer.clockNs()
    out.push({ beforeNs, peerNs, afterNs: process.hrtime.bigint() })
  }
  return out
}
