import { describe, expect, it } from 'vitest'
import { ConnectError } from '../errors.js'
import { ByteArrayConverter } from './byte-array-converter.js'
import { converterFromConfig, createConverter } from './create-converter.js'
import { JsonConverter } from './json-converter.js'
import { StringConverter } from './string-converter.js'

function caught(f: () => unknown): ConnectError {
  try {
    f()
  } catch (e) {
    if (e instanceof ConnectError) return e
    throw e
  }
  throw new Error('expected a ConnectError')
}

describe('createConverter', () => {
  it("accepts Kafka's class names and the short aliases", () => {
    expect(createConverter('org.apache.kafka.connect.json.JsonConverter', {}, false)).toBeInstanceOf(JsonConverter)
    expect(createConverter('json', {}, true)).toBeInstanceOf(JsonConverter)
    expect(createConverter('org.apache.kafka.connect.storage.StringConverter', {}, false)).toBeInstanceOf(
      StringConverter,
    )
    expect(createConverter('string', {}, false)).toBeInstanceOf(StringConverter)
    expect(createConverter('org.apache.kafka.connect.converters.ByteArrayConverter', {}, false)).toBeInstanceOf(
      ByteArrayConverter,
    )
    expect(createConverter('bytes', {}, false)).toBeInstanceOf(ByteArrayConverter)
  })

  it('refuses an unknown converter as CONFIG naming key.converter or value.converter', () => {
    const e = caught(() => createConverter('io.confluent.connect.avro.AvroConverter', {}, true))
    expect(e.code).toBe('CONFIG')
    expect(e.details.field).toBe('key.converter')
    expect(caught(() => createConverter('xml', {}, false)).details.field).toBe('value.converter')
  })

  it("names a converter property's full field", () => {
    const e = caught(() => createConverter('json', { 'schemas.enable': 'maybe' }, false))
    expect(e.details.field).toBe('value.converter.schemas.enable')
    expect(e.message).toMatch(/^value\.converter\.schemas\.enable: must be true or false/)
    expect(caught(() => createConverter('string', { 'converter.encoding': 'EBCDIC' }, true)).details.field).toBe(
      'key.converter.converter.encoding',
    )
  })
})

describe('converterFromConfig', () => {
  it("takes the connector's converter and its prefixed properties, else the worker's", () => {
    const own = converterFromConfig({ 'value.converter': 'json', 'value.converter.schemas.enable': 'false' }, false, {
      'value.converter': 'string',
    })
    expect(own).toBeInstanceOf(JsonConverter)
    expect((own as JsonConverter).schemasEnabled).toBe(false)
    expect(converterFromConfig({}, true, { 'key.converter': 'string' })).toBeInstanceOf(StringConverter)
    expect(caught(() => converterFromConfig({}, true)).details.field).toBe('key.converter')
  })
})
