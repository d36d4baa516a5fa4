import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readLines, splitKey } from './line-reader.js'

async function collect(chunks: Array<Buffer | string>, maxLineChars?: number): Promise<string[]> {
  const out: string[] = []
  for await (const line of readLines(Readable.from(chunks), { maxLineChars })) out.push(line)
  return out
}

describe('readLines', () => {
  it('splits lines across chunk boundaries, with CRLF and a final line without newline', async () => {
    expect(await collect(['a\nb', 'c\r\n\nd'])).toEqual(['a', 'bc', '', 'd'])
    expect(await collect(['x\n'])).toEqual(['x'])
    expect(await collect([])).toEqual([])
  })

  it('decodes UTF-8 characters split across chunks', async () => {
    const bytes = Buffer.from('héllo\n€\n', 'utf8')
    const chunks = [...bytes].map((b) => Buffer.from([b]))
    expect(await collect(chunks)).toEqual(['héllo', '€'])
  })

  it('pulls the next chunk only after the consumer took the lines of the current one', async () => {
    let pulled = 0
    async function* source(): AsyncGenerator<string> {
      for (let i = 0; i < 100; i++) {
        pulled++
        yield `line${i}\n`
      }
    }
    const it = readLines(source())
    await it.next()
    await it.next()
    expect(pulled).toBe(2)
    await it.return(undefined)
  })

  it('fails on a line longer than the limit instead of buffering forever', async () => {
    await expect(collect(['x'.repeat(20), 'y'.repeat(20)], 30)).rejects.toThrow('longer than 30')
  })
})

describe('splitKey', () => {
  it('splits at the first separator only', () => {
    expect(splitKey('k1:v:1', ':')).toEqual({ key: 'k1', value: 'v:1' })
    expect(splitKey('novalue', ':')).toEqual({ key: undefined, value: 'novalue' })
    expect(splitKey('a::b', '::')).toEqual({ key: 'a', value: 'b' })
    expect(splitKey('k:v', undefined)).toEqual({ key: undefined, value: 'k:v' })
    expect(splitKey(':v', ':')).toEqual({ key: '', value: 'v' })
  })
})
