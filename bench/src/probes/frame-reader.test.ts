import { describe, expect, it } from 'vitest'
import { FrameReader, frame } from './frame-reader.js'
import { BODY_MIN_BYTES, bodyMeasured, bodySeq, newBody } from './probe-body.js'

describe('FrameReader', () => {
  it('cuts frames out of chunks however the stream splits them', () => {
    const bodies = [newBody(40, 1, false), newBody(96, 2, true), newBody(1020, 3, true)]
    const stream = Buffer.concat(bodies.map(frame))
    for (const cut of [1, 3, 4, 5, 50, 200, stream.length]) {
      const reader = new FrameReader()
      const seen: Buffer[] = []
      for (let at = 0; at < stream.length; at += cut)
        reader.push(stream.subarray(at, at + cut), (b) => seen.push(Buffer.from(b)))
      expect(seen.map(bodySeq)).toEqual([1, 2, 3])
      expect(seen.map(bodyMeasured)).toEqual([false, true, true])
      expect(seen.map((b) => b.length)).toEqual([40, 96, 1020])
    }
  })

  it('keeps a partial frame until the rest arrives', () => {
    const f = frame(newBody(64, 9, true))
    const reader = new FrameReader()
    const seen: number[] = []
    reader.push(f.subarray(0, 10), (b) => seen.push(bodySeq(b)))
    expect(seen).toEqual([])
    reader.push(f.subarray(10), (b) => seen.push(bodySeq(b)))
    expect(seen).toEqual([9])
  })

  it('never makes a body smaller than its stamps need', () => {
    expect(newBody(1, 0, false).length).toBe(BODY_MIN_BYTES)
  })
})
