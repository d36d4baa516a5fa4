import { describe, expect, it } from 'vitest'
import { ansi, fieldText, levelName, prettyLine } from './log-pretty.js'

describe('prettyLine', () => {
  it('turns a pino record into name, level, message and key=value fields', () => {
    const line = JSON.stringify({
      level: 30,
      time: 1_700_000_000_000,
      pid: 42,
      hostname: 'h',
      service: 'broker',
      component: 'session',
      brokerEpoch: '3',
      msg: 'registered with metadata service',
    })
    expect(prettyLine(line, { name: 'broker-1', nameWidth: 10 })).toBe(
      'broker-1    INFO   registered with metadata service  component=session brokerEpoch=3',
    )
  })

  it('quotes values with spaces, JSON-encodes objects and summarises errors', () => {
    const line = JSON.stringify({
      level: 50,
      msg: 'append failed',
      dir: '/tmp/a b',
      replicas: [1, 2],
      err: { type: 'SluiceError', code: 'CORRUPT_MESSAGE', message: 'bad crc', stack: 'Error: at x' },
    })
    expect(prettyLine(line, { name: 'broker-2' })).toBe(
      'broker-2  ERROR  append failed  dir="/tmp/a b" replicas=[1,2] err="CORRUPT_MESSAGE: bad crc"',
    )
  })

  it('passes through lines that are not pino records, with the prefix', () => {
    expect(prettyLine('LISTENING 9092', { name: 'broker-1' })).toBe('broker-1  LISTENING 9092')
    expect(prettyLine('{not json', { name: 'm' })).toBe('m  {not json')
    expect(prettyLine('{"a":1}', { name: 'm' })).toBe('m  {"a":1}')
    expect(prettyLine('    at Object.<anonymous> (x.js:1:1)', { name: 'm' })).toBe(
      'm      at Object.<anonymous> (x.js:1:1)',
    )
  })

  it('colours the name and level when asked', () => {
    const out = prettyLine(JSON.stringify({ level: 40, msg: 'lagging' }), {
      name: 'metadata',
      colour: true,
      nameColour: ansi.cyan,
    })
    expect(out).toBe(`${ansi.cyan}metadata${ansi.reset}  ${ansi.yellow}WARN ${ansi.reset}  lagging`)
    expect(prettyLine(JSON.stringify({ level: 40, msg: 'lagging' }), { name: 'metadata' })).not.toContain('\u001b')
  })

  it('shows the local time when asked', () => {
    const time = new Date(2024, 0, 2, 3, 4, 5, 6).getTime()
    expect(prettyLine(JSON.stringify({ level: 20, time, msg: 'x' }), { name: 'm', showTime: true })).toBe(
      'm  03:04:05.006  DEBUG  x',
    )
  })
})

describe('helpers', () => {
  it('names levels, including unknown and string ones', () => {
    expect(levelName(60)).toBe('FATAL')
    expect(levelName(35)).toBe('L35')
    expect(levelName('warn')).toBe('WARN')
  })

  it('renders field values compactly', () => {
    expect(fieldText('plain')).toBe('plain')
    expect(fieldText('a=b')).toBe('"a=b"')
    expect(fieldText(12)).toBe('12')
    expect(fieldText(null)).toBe('null')
    expect(fieldText({ a: 1 })).toBe('{"a":1}')
  })
})
