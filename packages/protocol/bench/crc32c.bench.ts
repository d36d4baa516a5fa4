/** CRC-32C (@node-rs/crc32) over batch-sized and 1 MiB buffers; MB/s = hz x size / 10^6. */
import { randomFillSync } from 'node:crypto'
import { bench, describe } from 'vitest'
import { crc32c } from '../src/index.js'

const batch = randomFillSync(Buffer.allocUnsafe(108_000))
const mib = randomFillSync(Buffer.allocUnsafe(1024 * 1024))

describe('crc32c', () => {
  bench('108 KB (one 1,000 x 100 B batch)', () => {
    crc32c(batch)
  })
  bench('1 MiB', () => {
    crc32c(mib)
  })
})
