import { describe, expect, it } from 'vitest'
import { schemaless, sinkRecord } from './__fixtures__/records.js'
import { ExtractTopic } from './extract-topic.js'
import { RegexRouter } from './regex-router.js'

describe('ExtractTopic', () => {
  it('routes by a value field, or by the whole key', () => {
    const t = new ExtractTopic('value')
    t.configure({ field: 'email' })
    expect(t.apply(sinkRecord()).topic).toBe('a@b.c')
    const k = new ExtractTopic('key')
    k.configure({})
    expect(k.apply(schemaless({}, { key: 'by-key' })).topic).toBe('by-key')
  })

  it('fails on a missing field unless skip.missing.or.null', () => {
    const t = new ExtractTopic()
    t.configure({ field: 'region' })
    expect(() => t.apply(schemaless({ a: 1 }))).toThrow(/missing or null/)
    const s = new ExtractTopic()
    s.configure({ field: 'region', 'skip.missing.or.null': 'true' })
    expect(s.apply(schemaless({ a: 1 })).topic).toBe('users')
    expect(() => t.apply(schemaless({ region: { x: 1 } }))).toThrow(/must be a string/)
  })
})

describe('RegexRouter', () => {
  it('renames topics whose whole name matches, with groups', () => {
    const t = new RegexRouter()
    t.configure({ regex: 'pg\\.(\\w+)\\.(\\w+)', replacement: 'cdc-$2' })
    expect(t.apply(schemaless({}, { topic: 'pg.public.orders' })).topic).toBe('cdc-orders')
    expect(t.apply(schemaless({}, { topic: 'xpg.public.orders.y' })).topic).toBe('xpg.public.orders.y')
    const named = new RegexRouter()
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Java's named-group reference, not a template
    named.configure({ regex: '(?<t>.*)-raw', replacement: '${t}-clean' })
    expect(named.apply(schemaless({}, { topic: 'logs-raw' })).topic).toBe('logs-clean')
  })

  it('refuses a bad regex as CONFIG naming regex', () => {
    expect(() => new RegexRouter().configure({ regex: '(', replacement: 'x' })).toThrow(/^regex: not a valid regex/)
  })
})
