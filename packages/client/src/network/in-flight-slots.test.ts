import { describe, expect, it } from 'vitest'
import { InFlightSlots } from './in-flight-slots.js'

describe('InFlightSlots', () => {
  it('holds at most max, hands a released slot to the oldest waiter, and wakes every waiter on close', async () => {
    const slots = new InFlightSlots(2)
    await slots.acquire()
    await slots.acquire()
    expect(slots.inUse).toBe(2)
    expect(slots.hasFree).toBe(false)
    const order: number[] = []
    const first = slots.acquire().then(() => order.push(1))
    const second = slots.acquire().then(() => order.push(2))
    const third = slots.acquire().then(() => order.push(3))
    slots.release()
    await first
    expect(order).toEqual([1])
    expect(slots.inUse).toBe(2) // handed over, not freed
    slots.close()
    await Promise.all([second, third])
    expect(order).toEqual([1, 2, 3])
    await slots.acquire() // closed: returns at once
    for (let i = 0; i < 5; i++) slots.release()
    expect(slots.inUse).toBe(0)
  })
})
