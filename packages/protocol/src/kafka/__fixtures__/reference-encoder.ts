/**
 * A second encoder of Kafka messages, written independently of the generator: it walks the
 * schema descriptors at run time. The codec tests check the generated straight-line code against
 * it byte for byte, so a generator bug shows up as a difference, not as a matching round trip.
 */
import { KafkaWriter } from '../kafka-writer.js'
import { type FieldDescriptor, inRange, type MessageDescriptor } from '../message-descriptor.js'
import { defaultValue } from './message-samples.js'

const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1)

export function referenceEncode(d: MessageDescriptor, version: number, message: Record<string, unknown>): Buffer {
  const w = new KafkaWriter()
  writeStruct(w, d.fields, version, inRange(d.flexible, version), message)
  return w.toBuffer()
}

function writeStruct(
  w: KafkaWriter,
  fields: readonly FieldDescriptor[],
  v: number,
  flexible: boolean,
  m: Record<string, unknown>,
): void {
  const tagged = new Map<number, Uint8Array>()
  for (const f of fields) {
    if (!inRange(f.versions, v)) continue
    const value = m[camel(f.name)]
    if (f.tag !== undefined && inRange(f.tagged, v)) {
      if (!isDefault(f, value)) {
        const tw = new KafkaWriter()
        writeField(tw, f, v, true, value)
        tagged.set(f.tag, tw.toBuffer())
      }
      continue
    }
    writeField(w, f, v, flexible, value)
  }
  if (flexible) w.taggedFields(tagged)
}

function writeField(w: KafkaWriter, f: FieldDescriptor, v: number, flexible: boolean, value: unknown): void {
  if (f.type.startsWith('[]')) {
    const items = value as unknown[] | null
    const item = (iw: KafkaWriter, _v: number, x: unknown): void =>
      f.fields !== undefined
        ? writeStruct(iw, f.fields, v, flexible, x as Record<string, unknown>)
        : writePrimitive(iw, f.type.slice(2), flexible, x)
    if (flexible) w.compactArray(items, item, v)
    else w.array(items, item, v)
    return
  }
  if (f.fields !== undefined) {
    if (inRange(f.nullable, v)) {
      if (value === null) {
        w.int8(-1)
        return
      }
      w.int8(1)
    }
    writeStruct(w, f.fields, v, flexible, value as Record<string, unknown>)
    return
  }
  writePrimitive(w, f.type, flexible, value)
}

function writePrimitive(w: KafkaWriter, type: string, flexible: boolean, x: unknown): void {
  switch (type) {
    case 'bool':
      w.boolean(x as boolean)
      return
    case 'int8':
      w.int8(x as number)
      return
    case 'int16':
      w.int16(x as number)
      return
    case 'int32':
      w.int32(x as number)
      return
    case 'uint32':
      w.uint32(x as number)
      return
    case 'int64':
      w.int64(x as bigint)
      return
    case 'float64':
      w.float64(x as number)
      return
    case 'uuid':
      w.uuid(x as Buffer)
      return
    case 'string':
      if (flexible) w.compactString(x as string | null)
      else w.string(x as string | null)
      return
    case 'bytes':
    case 'records':
      if (flexible) w.compactBytes(x as Buffer | null)
      else w.bytes(x as Buffer | null)
      return
  }
  throw new Error(`cannot encode type ${type}`)
}

/** Kafka leaves a tagged field out while it holds its default. */
function isDefault(f: FieldDescriptor, value: unknown): boolean {
  const d = defaultValue(f)
  if (Array.isArray(value)) return value.length === 0 && Array.isArray(d)
  if (Buffer.isBuffer(value)) return Buffer.isBuffer(d) && value.equals(d)
  if (value !== null && typeof value === 'object') {
    return (f.fields ?? []).every((sub) => isDefault(sub, (value as Record<string, unknown>)[camel(sub.name)]))
  }
  return value === d
}
