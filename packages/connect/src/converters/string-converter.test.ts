import { describe, expect, it } from 'vitest'
import { ByteArrayConverter } from './byte-array-converter.js'
import { StringConverter } from './string-converter.js'

describe('StringConverter', () => {
  it('writes text in UTF-8 by default and reads it back with an optional string schema', () => {
    const c = new StringConverter()
    expect(c.fromConnectData('t', { value: 'héllo' })).toEqual(Buffer.from('héllo', 'utf8'))
    expect(c.fromConnectData('t', { value: 42 })!.toString()).toBe('42')
    expect(c.fromConnectData('t', { value: null })).toBeNull()
    expect(c.toConnectData('t', Buffer.from('héllo'))).toEqual({
      schema: { type: 'string', optional: true },
      value: 'héllo',
    })
    expect(c.toConnectData('t', null).value).toBeNull()
  })

  it('uses converter.encoding (Java charset names)', () => {
    const c = new StringConverter({ 'converter.encoding': 'ISO-8859-1' })
    expect(c.fromConnectData('t', { value: 'é' })).toEqual(Buffer.from([0xe9]))
    expect(c.toConnectData('t', Buffer.from([0xe9])).value).toBe('é')
  })

  it('refuses objects and Buffers as CONVERTER', () => {
    expect(() => new StringConverter().fromConnectData('t', { value: { a: 1 } })).toThrow(/writes text/)
    expect(() => new StringConverter().fromConnectData('t', { value: Buffer.from('x') })).toThrow(/writes text/)
  })
})

describe('ByteArrayConverter', () => {
  it('passes Buffers through, both ways', () => {
    const c = new ByteArrayConverter()
    const b = Buffer.from([0, 255, 7])
    expect(c.fromConnectData('t', { value: b })).toBe(b)
    expect(c.fromConnectData('t', { value: new Uint8Array([1]) })).toEqual(Buffer.from([1]))
    expect(c.toConnectData('t', b)).toEqual({ schema: { type: 'bytes', optional: true }, value: b })
    expect(c.fromConnectData('t', { value: null })).toBeNull()
  })

  it('refuses non-bytes values and non-bytes schemas as CONVERTER', () => {
    const c = new ByteArrayConverter()
    expect(() => c.fromConnectData('t', { value: 'text' })).toThrow(/writes a Buffer/)
    expect(() => c.fromConnectData('t', { schema: { type: 'string' }, value: Buffer.from('x') })).toThrow(
      /bytes schema/,
    )
  })
})
