/**
 * Deterministic sample messages built from the schema descriptors: `full` gives every field of
 * the version a non-default value (so tagged fields are written), `minimal` makes nullable
 * fields null and arrays empty. Fields absent in the version hold Kafka's defaults, which is what
 * a reader returns for them, so decode(encode(sample)) must equal the sample.
 */
import { type FieldDescriptor, inRange, type MessageDescriptor } from '../message-descriptor.js'

export type SampleKind = 'full' | 'minimal'

type Value = unknown
type Message = Record<string, Value>

const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1)

export function sampleMessage(d: MessageDescriptor, version: number, kind: SampleKind): Message {
  const counter = { k: 1 }
  return sampleStruct(d.fields, version, kind, counter)
}

function sampleStruct(fields: readonly FieldDescriptor[], v: number, kind: SampleKind, c: { k: number }): Message {
  const out: Message = {}
  for (const f of fields) {
    if (!inRange(f.versions, v)) out[camel(f.name)] = defaultValue(f)
    else if (f.tag !== undefined && kind === 'minimal') out[camel(f.name)] = defaultValue(f)
    else out[camel(f.name)] = sampleField(f, v, kind, c)
  }
  return out
}

function sampleField(f: FieldDescriptor, v: number, kind: SampleKind, c: { k: number }): Value {
  const nullable = inRange(f.nullable, v)
  if (kind === 'minimal' && nullable) return null
  if (f.type.startsWith('[]')) {
    if (kind === 'minimal') return []
    const n = 2
    return Array.from({ length: n }, () =>
      f.fields !== undefined ? sampleStruct(f.fields, v, kind, c) : samplePrimitive(f.type.slice(2), c),
    )
  }
  if (f.fields !== undefined) return sampleStruct(f.fields, v, kind, c)
  if (kind === 'minimal' && (f.type === 'string' || f.type === 'bytes' || f.type === 'records')) {
    return f.type === 'string' ? '' : Buffer.alloc(0)
  }
  return samplePrimitive(f.type, c)
}

function samplePrimitive(type: string, c: { k: number }): Value {
  const k = c.k++
  switch (type) {
    case 'bool':
      return k % 2 === 1
    case 'int8':
      return (k % 120) + 1
    case 'int16':
      return (k % 30_000) + 1
    case 'uint16':
      return (k % 60_000) + 1
    case 'int32':
      return k * 1_000 + 7
    case 'uint32':
      return k * 1_000 + 9
    case 'int64':
      return BigInt(k) * 1_000_000_007n
    case 'float64':
      return k + 0.5
    case 'string':
      return `s${k}-é`
    case 'bytes':
    case 'records':
      return Buffer.from(Array.from({ length: (k % 5) + 1 }, (_, i) => (k + i) & 0xff))
    case 'uuid':
      return Buffer.from(Array.from({ length: 16 }, (_, i) => (k * 16 + i) & 0xff))
  }
  throw new Error(`no sample for type ${type}`)
}

/** The value a reader gives a field absent in the version (the generator's defaults). */
export function defaultValue(f: FieldDescriptor): Value {
  const d = f.default
  if (f.type.startsWith('[]')) return d === 'null' ? null : []
  if (f.fields !== undefined) {
    if (d === 'null') return null
    const out: Message = {}
    for (const sub of f.fields) out[camel(sub.name)] = defaultValue(sub)
    return out
  }
  switch (f.type) {
    case 'bool':
      return d === 'true'
    case 'int64':
      return d === undefined ? 0n : BigInt(d)
    case 'string':
      return d === 'null' ? null : (d ?? '')
    case 'bytes':
      return d === 'null' ? null : Buffer.alloc(0)
    case 'records':
      return null
    case 'uuid':
      return Buffer.alloc(16)
    default:
      return d === undefined ? 0 : Number(d)
  }
}
