import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConsoleError } from '../errors.js'
import { lookup, matchesJsonPath, parseJsonPath, parseRecordFilter, recordMatches } from './record-filter.js'

const json = (v: unknown) => () => v
const buf = (s: string) => Buffer.from(s, 'utf8')

function badRequestOf(f: () => unknown): string {
  try {
    f()
  } catch (err) {
    expect(err).toBeInstanceOf(ConsoleError)
    expect((err as ConsoleError).code).toBe('BAD_REQUEST')
    return (err as Error).message
  }
  throw new Error('expected a BAD_REQUEST')
}

describe('record filter: parsing', () => {
  it('reads paths of names, indexes and quoted names, with and without a literal', () => {
    expect(parseJsonPath('$.user.name')).toEqual({
      kind: 'jsonPath',
      path: [
        { kind: 'name', name: 'user' },
        { kind: 'name', name: 'name' },
      ],
    })
    expect(parseJsonPath('$.items[2]["odd ]\\" key"] = "x"')).toEqual({
      kind: 'jsonPath',
      path: [
        { kind: 'name', name: 'items' },
        { kind: 'index', index: 2 },
        { kind: 'name', name: 'odd ]" key' },
      ],
      equals: { value: 'x', text: 'x' },
    })
    expect(parseJsonPath('$.n==5').equals).toEqual({ value: 5, text: '5' })
    expect(parseJsonPath('$.s=alice bob').equals).toEqual({ value: 'alice bob', text: 'alice bob' })
    expect(parseJsonPath('$')).toEqual({ kind: 'jsonPath', path: [] })
  })

  it('takes q or jsonPath, not both, and nothing when both are empty', () => {
    expect(parseRecordFilter(null, null)).toBeUndefined()
    expect(parseRecordFilter('', '  ')).toBeUndefined()
    expect(parseRecordFilter('needle', null)).toEqual({ kind: 'substring', needle: buf('needle') })
    expect(badRequestOf(() => parseRecordFilter('a', '$.a'))).toMatch(/not both/)
  })

  it('refuses malformed paths with a message that says where', () => {
    expect(badRequestOf(() => parseJsonPath('user.name'))).toMatch(/start with \$/)
    expect(badRequestOf(() => parseJsonPath('$.'))).toMatch(/property name after "\." at character 2/)
    expect(badRequestOf(() => parseJsonPath('$.a[1'))).toMatch(/unclosed/)
    expect(badRequestOf(() => parseJsonPath('$.a[x]'))).toMatch(/index or a quoted name/)
    expect(badRequestOf(() => parseJsonPath('$.a["x]'))).toMatch(/unclosed/)
    expect(badRequestOf(() => parseJsonPath('$..a'))).toMatch(/property name/)
    expect(badRequestOf(() => parseJsonPath('$.a='))).toMatch(/value after "="/)
    expect(badRequestOf(() => parseJsonPath('$.a b'))).toMatch(/expected "="/)
    expect(badRequestOf(() => parseJsonPath('$.a[-1]'))).toMatch(/index or a quoted name/)
    expect(badRequestOf(() => parseJsonPath('$[1][2]'.padEnd(2000, '[0]')))).toMatch(/longer than/)
    expect(badRequestOf(() => parseJsonPath(`$${'.a'.repeat(33)}`))).toMatch(/more than 32 steps/)
    expect(badRequestOf(() => parseRecordFilter('x'.repeat(1001), null))).toMatch(/q is longer/)
  })
})

describe('record filter: hostile input is data, never code', () => {
  it('never evaluates a literal or a path: code-looking text is only compared as text', () => {
    const g = globalThis as Record<string, unknown>
    // Template-literal text on purpose: it must stay text.
    const dollar = '$'
    const payloads = [
      '$.a=(() => { globalThis.hacked = true; return 1 })()',
      `$.a=${dollar}{globalThis.hacked = true}`,
      '$.a=require("child_process").execSync("touch /tmp/sluice-hacked")',
      '$["constructor"]["constructor"]=return process',
      `$.a=\`${dollar}{globalThis.hacked=1}\``,
      '$.a=eval("globalThis.hacked = true")',
    ]
    for (const p of payloads) {
      const f = parseJsonPath(p)
      expect(matchesJsonPath(f, { a: 1 })).toBe(false)
      expect(recordMatches(f, null, buf('{"a":1}'), json({ a: 1 }))).toBe(false)
    }
    expect(g.hacked).toBeUndefined()
    // The same text stored in a record is found, as text.
    const f = parseJsonPath(payloads[0]!)
    expect(matchesJsonPath(f, { a: f.equals!.text })).toBe(true)
  })

  it('reads own properties only: prototype names find nothing and pollute nothing', () => {
    for (const p of ['$.constructor', '$.__proto__', '$.toString', '$["__proto__"]["polluted"]', '$.hasOwnProperty']) {
      const f = parseJsonPath(p)
      expect(matchesJsonPath(f, {}), p).toBe(false)
      expect(matchesJsonPath(f, { a: [] }), p).toBe(false)
    }
    const proto = parseJsonPath('$.__proto__.polluted=yes')
    expect(matchesJsonPath(proto, JSON.parse('{"__proto__": {"polluted": "yes"}}'))).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(lookup([1, 2], [{ kind: 'name', name: 'length' }])).toEqual({ found: false })
    expect(lookup('text', [{ kind: 'index', index: 0 }])).toEqual({ found: false })
    expect(
      lookup({ a: { b: null } }, [
        { kind: 'name', name: 'a' },
        { kind: 'name', name: 'b' },
      ]),
    ).toEqual({
      found: true,
      value: null,
    })
  })

  it('matches a substring in binary keys and values byte for byte', () => {
    const f = parseRecordFilter('\u0000\u00ff', null)!
    expect(recordMatches(f, Buffer.from([1, 0, 0xc3, 0xbf]), null, json(undefined))).toBe(true)
    expect(recordMatches(f, null, Buffer.from([0, 0xff]), json(undefined))).toBe(false)
    const re = parseRecordFilter('.*', null)!
    expect(recordMatches(re, null, buf('anything'), json(undefined))).toBe(false)
    expect(recordMatches(re, null, buf('a.*b'), json(undefined))).toBe(true)
  })

  it('compares literals as JSON data, a bare word also as text', () => {
    expect(matchesJsonPath(parseJsonPath('$.n=5'), { n: '5' })).toBe(true)
    expect(matchesJsonPath(parseJsonPath('$.n="5"'), { n: 5 })).toBe(true)
    expect(matchesJsonPath(parseJsonPath('$.o={"x":[1]}'), { o: { x: [1] } })).toBe(true)
    expect(matchesJsonPath(parseJsonPath('$.o={"x":[1]}'), { o: { x: [2] } })).toBe(false)
    expect(matchesJsonPath(parseJsonPath('$.n=null'), { n: null })).toBe(true)
    expect(matchesJsonPath(parseJsonPath('$.n=null'), {})).toBe(false)
    expect(recordMatches(parseJsonPath('$.a'), null, buf('not json'), json(undefined))).toBe(false)
  })

  it('answers any text with a filter or a BAD_REQUEST, never another error', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (path, q) => {
        for (const [a, b] of [
          [null, `$${path}`],
          [null, path],
          [q, null],
        ] as const) {
          try {
            const f = parseRecordFilter(a, b)
            if (f !== undefined) recordMatches(f, buf(q), buf(path), json({ a: [path], [q]: q }))
          } catch (err) {
            if (!(err instanceof ConsoleError) || err.code !== 'BAD_REQUEST') throw err
          }
        }
      }),
      { numRuns: 2000 },
    )
  })
})
