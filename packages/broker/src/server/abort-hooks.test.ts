import { describe, expect, it } from 'vitest'
import { onAbort } from './abort-hooks.js'

describe('onAbort', () => {
  it('runs each registered callback once on abort, except those cancelled', () => {
    const c = new AbortController()
    const ran: string[] = []
    onAbort(c.signal, () => ran.push('a'))
    const cancelB = onAbort(c.signal, () => ran.push('b'))
    onAbort(c.signal, () => ran.push('c'))
    cancelB()
    c.abort()
    c.abort()
    expect(ran).toEqual(['a', 'c'])
  })

  it('keeps signals apart', () => {
    const one = new AbortController()
    const two = new AbortController()
    const ran: number[] = []
    onAbort(one.signal, () => ran.push(1))
    onAbort(two.signal, () => ran.push(2))
    two.abort()
    expect(ran).toEqual([2])
    one.abort()
    expect(ran).toEqual([2, 1])
  })
})
