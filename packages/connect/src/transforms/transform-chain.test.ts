import { describe, expect, it } from 'vitest'
import { ConnectError } from '../errors.js'
import { schemaless, sinkRecord } from './__fixtures__/records.js'
import { buildTransformChain } from './transform-chain.js'

function configError(config: Record<string, string>): ConnectError {
  try {
    buildTransformChain(config)
  } catch (e) {
    if (e instanceof ConnectError && e.code === 'CONFIG') return e
    throw e
  }
  throw new Error('expected a CONFIG error')
}

describe('buildTransformChain', () => {
  it('applies Kafka-named transforms in order, each with its properties', () => {
    const chain = buildTransformChain({
      transforms: 'rename, addTopic ,route',
      'transforms.rename.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
      'transforms.rename.renames': 'email:mail',
      'transforms.addTopic.type': 'InsertField$Value',
      'transforms.addTopic.topic.field': 'from',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'users',
      'transforms.route.replacement': 'people',
    })
    expect(chain.steps.map((s) => s.alias)).toEqual(['rename', 'addTopic', 'route'])
    const out = chain.apply(sinkRecord())!
    expect(out.topic).toBe('people')
    // addTopic ran before route: it saw the old topic.
    expect(out.value).toEqual({ id: 7, mail: 'a@b.c', age: 30, from: 'users' })
    expect(out.valueSchema?.fields?.map((f) => f.field)).toEqual(['id', 'mail', 'age', 'from'])
  })

  it('an empty config is an empty chain that returns the record', () => {
    const r = sinkRecord()
    expect(buildTransformChain({}).apply(r)).toBe(r)
  })

  it('Filter with a predicate drops only what the predicate picks; negate inverts it', () => {
    const base = {
      transforms: 'dropTombstones',
      'transforms.dropTombstones.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.dropTombstones.predicate': 'isTombstone',
      predicates: 'isTombstone',
      'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
    }
    const chain = buildTransformChain(base)
    expect(chain.apply(schemaless(null))).toBeNull()
    expect(chain.apply(schemaless({ a: 1 }))).not.toBeNull()
    const negated = buildTransformChain({ ...base, 'transforms.dropTombstones.negate': 'true' })
    expect(negated.apply(schemaless(null))).not.toBeNull()
    expect(negated.apply(schemaless({ a: 1 }))).toBeNull()
  })

  it('TopicNameMatches and HasHeaderKey guard a transform', () => {
    const chain = buildTransformChain({
      transforms: 'mask,drop',
      'transforms.mask.type': 'MaskField$Value',
      'transforms.mask.fields': 'email',
      'transforms.mask.predicate': 'usersTopic',
      'transforms.drop.type': 'Filter',
      'transforms.drop.predicate': 'debug',
      predicates: 'usersTopic,debug',
      'predicates.usersTopic.type': 'TopicNameMatches',
      'predicates.usersTopic.pattern': 'user.*',
      'predicates.debug.type': 'HasHeaderKey',
      'predicates.debug.name': 'x-debug',
    })
    expect(chain.apply(schemaless({ email: 'e' }))!.value).toEqual({ email: '' })
    expect(chain.apply(schemaless({ email: 'e' }, { topic: 'admins' }))!.value).toEqual({ email: 'e' })
    expect(chain.apply(schemaless({ email: 'e' }, { headers: [{ key: 'x-debug', value: '1' }] }))).toBeNull()
  })

  it('names the exact field of a bad config', () => {
    expect(configError({ transforms: 'a' }).details.field).toBe('transforms.a.type')
    expect(configError({ transforms: 'a', 'transforms.a.type': 'com.example.Nope' }).details.field).toBe(
      'transforms.a.type',
    )
    expect(configError({ transforms: 'a,a', 'transforms.a.type': 'Filter' }).details.field).toBe('transforms')
    const renames = configError({
      transforms: 'r',
      'transforms.r.type': 'ReplaceField$Value',
      'transforms.r.renames': 'x',
    })
    expect(renames.details.field).toBe('transforms.r.renames')
    expect(renames.message).toMatch(/^transforms\.r\.renames: "x" is not old:new/)
    expect(configError({ transforms: 'm', 'transforms.m.type': 'MaskField$Key' }).details.field).toBe(
      'transforms.m.fields',
    )
    expect(
      configError({ transforms: 'f', 'transforms.f.type': 'Filter', 'transforms.f.predicate': 'p' }).details.field,
    ).toBe('transforms.f.predicate')
    expect(
      configError({ transforms: 'f', 'transforms.f.type': 'Filter', 'transforms.f.negate': 'true' }).details.field,
    ).toBe('transforms.f.negate')
    expect(configError({ predicates: 'p', 'predicates.p.type': 'TopicNameMatches' }).details.field).toBe(
      'predicates.p.pattern',
    )
    expect(configError({ predicates: 'p', 'predicates.p.type': 'Nope' }).details.field).toBe('predicates.p.type')
    expect(
      configError({ transforms: 'i', 'transforms.i.type': 'InsertField$Value', 'transforms.i.part': 'key' }).details
        .field,
    ).toBe('transforms.i.part')
  })

  it('a transform failing on a record is a TRANSFORM error naming its alias and class', () => {
    const chain = buildTransformChain({
      transforms: 'ins',
      'transforms.ins.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.ins.topic.field': 't',
    })
    let err: unknown
    try {
      chain.apply(schemaless('not a struct'))
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConnectError)
    expect((err as ConnectError).code).toBe('TRANSFORM')
    expect((err as ConnectError).details).toMatchObject({
      transform: 'ins',
      className: 'org.apache.kafka.connect.transforms.InsertField$Value',
    })
  })
})
