// The code generator of one Kafka message (request or response) for scripts/gen-kafka-messages.mjs:
// the schema's fields as a model (version ranges, nullability, tags, defaults), then TypeScript
// types, straight-line readers and writers, and the defaults of tagged structs.

// ---- version ranges -------------------------------------------------------------------------

/** "3+", "0-5", "7", "none" as [lo, hi] (hi Infinity), or undefined for none. */
export function range(spec) {
  if (spec === undefined || spec === 'none') return undefined
  if (spec.endsWith('+')) return [Number(spec.slice(0, -1)), Number.POSITIVE_INFINITY]
  const dash = spec.indexOf('-')
  if (dash > 0) return [Number(spec.slice(0, dash)), Number(spec.slice(dash + 1))]
  return [Number(spec), Number(spec)]
}

export function intersect(a, b) {
  if (a === undefined || b === undefined) return undefined
  const lo = Math.max(a[0], b[0])
  const hi = Math.min(a[1], b[1])
  return lo <= hi ? [lo, hi] : undefined
}

/** A JS condition on `v` for a range, given the range the caller already knows holds. */
function cond(r, within) {
  if (r === undefined) return 'false'
  const parts = []
  if (r[0] > within[0]) parts.push(`v >= ${r[0]}`)
  if (r[1] < within[1]) parts.push(r[0] === r[1] ? `v === ${r[0]}` : `v <= ${r[1]}`)
  if (parts.length === 2 && r[0] === r[1]) return `v === ${r[0]}`
  return parts.length === 0 ? 'true' : parts.join(' && ')
}

// ---- names and types ------------------------------------------------------------------------

const camel = (name) => name.charAt(0).toLowerCase() + name.slice(1)
const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1)

/** A helper's name suffix: only items encoded differently in flexible versions need two helpers. */
const flexSuffix = (compact, classic, fl) => (compact === classic ? '' : fl ? 'Compact' : 'Classic')

/** The item codecs message-runtime.ts exports (the generator names no other). */
const RUNTIME_ITEMS = new Set([
  'readInt32Item',
  'readInt64Item',
  'writeInt32Item',
  'writeInt64Item',
  'writeStringItemCompact',
  'writeStringItemClassic',
])

/** An item codec from message-runtime.ts, imported by the file. */
function runtimeItem(ctx, name) {
  if (!RUNTIME_ITEMS.has(name)) throw new Error(`${ctx.message}: add ${name} to message-runtime.ts and RUNTIME_ITEMS`)
  ctx.runtime.add(name)
  return name
}

/** Records a module-level helper of the file (the same name always has the same code). */
function addHelper(ctx, name, code) {
  const had = ctx.helpers.get(name)
  if (had !== undefined && had !== code) throw new Error(`${ctx.message}: helper ${name} defined twice differently`)
  ctx.helpers.set(name, code)
}

const PRIMITIVE_TS = {
  bool: 'boolean',
  int8: 'number',
  int16: 'number',
  uint16: 'number',
  int32: 'number',
  uint32: 'number',
  int64: 'bigint',
  float64: 'number',
  string: 'string',
  bytes: 'Buffer',
  records: 'Buffer',
  uuid: 'Buffer',
}

/** A field's model: its kind, TS types and the ranges that matter. */
function fieldModel(f, ctx) {
  const isArray = f.type.startsWith('[]')
  const elem = isArray ? f.type.slice(2) : f.type
  const isStruct = f.fields !== undefined
  if (!isStruct && PRIMITIVE_TS[elem] === undefined) throw new Error(`${ctx.message}: unknown type ${f.type}`)
  const struct = isStruct ? structModel(f.fields, `${ctx.message}${elem}`, ctx) : undefined
  const versions = intersect(range(f.versions), ctx.valid)
  return {
    name: f.name,
    prop: camel(f.name),
    isArray,
    elem,
    struct,
    versions,
    nullable: intersect(range(f.nullableVersions), versions),
    tagged: f.tag === undefined ? undefined : intersect(range(f.taggedVersions), versions),
    tag: f.tag,
    default: f.default,
  }
}

function structModel(fields, typeName, ctx) {
  const model = { typeName, fields: [] }
  ctx.structs.push(model)
  model.fields = fields.map((f) => fieldModel(f, ctx))
  return model
}

function elemTs(fm, input) {
  if (fm.struct !== undefined) return input ? `${fm.struct.typeName}Input` : fm.struct.typeName
  return PRIMITIVE_TS[fm.elem]
}

function fieldTs(fm, input) {
  const base = fm.isArray ? `${elemTs(fm, input)}[]` : elemTs(fm, input)
  return fm.nullable !== undefined ? `${base} | null` : base
}

/** The value of a field where it is absent (Kafka's defaults), as a TS expression. */
function defaultExpr(fm) {
  const d = fm.default
  if (fm.isArray) return d === 'null' ? 'null' : '[]'
  if (fm.struct !== undefined) return d === 'null' ? 'null' : `default${fm.struct.typeName}()`
  switch (fm.elem) {
    case 'bool':
      return d === true || d === 'true' ? 'true' : 'false'
    case 'int64':
      return d === undefined ? '0n' : `${BigInt(d)}n`
    case 'string':
      if (d === 'null') return 'null'
      return JSON.stringify(d ?? '')
    case 'bytes':
      return d === 'null' ? 'null' : 'EMPTY_BYTES'
    case 'records':
      return 'null'
    case 'uuid':
      return 'ZERO_UUID'
    default:
      return d === undefined ? '0' : String(Number(d))
  }
}

// ---- code: readers ---------------------------------------------------------------------------

function readPrimitive(elem, flexible) {
  switch (elem) {
    case 'bool':
      return 'r.boolean()'
    case 'int8':
      return 'r.int8()'
    case 'int16':
      return 'r.int16()'
    case 'uint16':
      return 'r.uint16()'
    case 'int32':
      return 'r.int32()'
    case 'uint32':
      return 'r.uint32()'
    case 'int64':
      return 'r.int64()'
    case 'float64':
      return 'r.float64()'
    case 'uuid':
      return 'r.uuid()'
    case 'string':
      return flexible ? 'r.compactString()' : 'r.string()'
    case 'bytes':
    case 'records':
      return flexible ? 'r.compactBytes()' : 'r.bytes()'
  }
  throw new Error(elem)
}

/** An expression reading one value of `fm` (flexible is a JS expression: 'true', 'false' or 'f'). */
function readValue(fm, flexible, ctx) {
  const name = JSON.stringify(fm.name)
  const nullableCond = fm.nullable === undefined ? 'false' : cond(fm.nullable, fm.versions)
  // An array's items are read by a function named here (a struct's reader, or a module-level
  // helper for primitives) and passed with the version: no closure is made per call.
  const item = (fl) => {
    if (fm.struct !== undefined) return `read${fm.struct.typeName}`
    const strict = ['string', 'bytes'].includes(fm.elem)
    const value = strict
      ? `required(${readPrimitive(fm.elem, fl)}, ${JSON.stringify(`${fm.name}[]`)}, r)`
      : readPrimitive(fm.elem, fl)
    const helper = `read${strict ? fm.name : ''}${pascal(fm.elem)}Item${flexSuffix(readPrimitive(fm.elem, true), readPrimitive(fm.elem, false), fl)}`
    // A string or bytes item names its field when it is null: those helpers are the file's own.
    if (!strict) return runtimeItem(ctx, helper)
    addHelper(
      ctx,
      helper,
      `function ${helper}(r: KafkaReader, _v: number): ${PRIMITIVE_TS[fm.elem]} {\n  return ${value}\n}`,
    )
    return helper
  }
  let expr
  if (fm.isArray) {
    expr =
      flexible === 'true'
        ? `r.compactArray(${item(true)}, v)`
        : flexible === 'false'
          ? `r.array(${item(false)}, v)`
          : `(${flexible} ? r.compactArray(${item(true)}, v) : r.array(${item(false)}, v))`
  } else if (fm.struct !== undefined) {
    if (fm.nullable !== undefined) {
      return `(${nullableCond} && r.int8() < 0 ? null : read${fm.struct.typeName}(r, v))`
    }
    return `read${fm.struct.typeName}(r, v)`
  } else {
    const prim = readPrimitive(fm.elem, true)
    const classic = readPrimitive(fm.elem, false)
    expr =
      prim === classic
        ? prim
        : flexible === 'true'
          ? prim
          : flexible === 'false'
            ? classic
            : `(${flexible} ? ${prim} : ${classic})`
    if (!['string', 'bytes', 'records'].includes(fm.elem)) return expr
  }
  if (fm.nullable === undefined) return `required(${expr}, ${name}, r)`
  if (nullableCond === 'true') return expr
  return `nullableIf(${nullableCond}, ${expr}, ${name}, r)`
}

function genReader(s, ctx) {
  const lines = []
  const ret = s.typeName
  lines.push(`export function read${s.typeName}(r: KafkaReader, v: number): ${ret} {`)
  const flex = ctx.flexible
  const flexDecl = flex === undefined ? undefined : cond(flex, ctx.valid)
  if (flexDecl !== undefined && flexDecl !== 'false' && flexDecl !== 'true') lines.push(`  const f = ${flexDecl}`)
  const f = flexDecl === undefined ? 'false' : flexDecl === 'true' || flexDecl === 'false' ? flexDecl : 'f'
  for (const fm of s.fields) {
    const untagged = untaggedRange(fm)
    const decl = `  let ${fm.prop}: ${fieldTs(fm, false)} = ${defaultExpr(fm)}`
    const c = untagged === undefined ? 'false' : cond(untagged, ctx.valid)
    if (c === 'true') {
      lines.push(`  const ${fm.prop}: ${fieldTs(fm, false)} = ${readValue(fm, f, ctx)}`)
      fm.isConst = true
    } else {
      lines.push(decl)
      fm.isConst = false
      if (c !== 'false') lines.push(`  if (${c}) ${fm.prop} = ${readValue(fm, f, ctx)}`)
    }
  }
  const taggedFields = s.fields.filter((fm) => fm.tagged !== undefined)
  if (f !== 'false') {
    if (taggedFields.length === 0) {
      lines.push(f === 'true' ? '  r.taggedFields()' : '  if (f) r.taggedFields()')
    } else {
      lines.push(`  ${f === 'true' ? '' : 'if (f) '}{`)
      lines.push('    const tags = r.taggedFields(true)')
      for (const fm of taggedFields) {
        const c = cond(fm.tagged, ctx.valid)
        lines.push(
          `    const tag${fm.tag} = ${c === 'true' ? `tags.get(${fm.tag})` : `${c} ? tags.get(${fm.tag}) : undefined`}`,
        )
        // The block's reader shadows the message's: the tagged value is read from its own bytes.
        lines.push(`    if (tag${fm.tag} !== undefined) {`)
        lines.push(`      const r = new KafkaReader(tag${fm.tag})`)
        lines.push(`      ${fm.prop} = ${readValue(fm, 'true', ctx)}`)
        lines.push('    }')
      }
      lines.push('  }')
    }
  }
  lines.push(`  return { ${s.fields.map((fm) => fm.prop).join(', ')} }`)
  lines.push('}')
  return lines.join('\n')
}

/** The versions in which a field sits in the regular position (not in the tagged section). */
function untaggedRange(fm) {
  if (fm.versions === undefined) return undefined
  if (fm.tagged === undefined) return fm.versions
  // Tagged fields are tagged in all the versions they exist in (true of every schema Sluice uses).
  if (fm.tagged[0] !== fm.versions[0] || fm.tagged[1] !== fm.versions[1]) {
    throw new Error(`${fm.name}: a field both tagged and untagged is not supported`)
  }
  return undefined
}

// ---- code: writers ---------------------------------------------------------------------------

function writePrimitive(elem, flexible, value) {
  switch (elem) {
    case 'bool':
      return `w.boolean(${value})`
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'float64':
    case 'uuid':
      return `w.${elem}(${value})`
    case 'string':
      return flexible ? `w.compactString(${value})` : `w.string(${value})`
    case 'bytes':
    case 'records':
      return flexible ? `w.compactBytes(${value})` : `w.bytes(${value})`
  }
  throw new Error(elem)
}

function writeValue(fm, flexible, value, ctx) {
  if (fm.isArray) {
    // As readValue: the item writer is a named function passed with the version, never a closure.
    const item = (fl) => {
      if (fm.struct !== undefined) return `write${fm.struct.typeName}`
      const helper = `write${pascal(fm.elem)}Item${flexSuffix(writePrimitive(fm.elem, true, 'x'), writePrimitive(fm.elem, false, 'x'), fl)}`
      return runtimeItem(ctx, helper)
    }
    const mk = (fl) => `w.${fl ? 'compactArray' : 'array'}(${value}, ${item(fl)}, v)`
    return flexible === 'true'
      ? mk(true)
      : flexible === 'false'
        ? mk(false)
        : `${flexible} ? ${mk(true)} : ${mk(false)}`
  }
  if (fm.struct !== undefined) {
    if (fm.nullable !== undefined) {
      return `${value} === null ? w.int8(-1) : (w.int8(1), write${fm.struct.typeName}(w, v, ${value}))`
    }
    return `write${fm.struct.typeName}(w, v, ${value})`
  }
  const prim = writePrimitive(fm.elem, true, value)
  const classic = writePrimitive(fm.elem, false, value)
  if (prim === classic || flexible === 'true') return prim
  if (flexible === 'false') return classic
  return `${flexible} ? ${prim} : ${classic}`
}

/** A writer's value of an optional field: undefined means the default; null stays null. */
function inputValue(fm) {
  return fm.nullable !== undefined
    ? `(m.${fm.prop} === undefined ? ${defaultExpr(fm)} : m.${fm.prop})`
    : `(m.${fm.prop} ?? ${defaultExpr(fm)})`
}

/** A condition true when a tagged field's value differs from its default (only then is it written). */
function notDefault(fm, value) {
  if (fm.isArray) return fm.default === 'null' ? `${value} !== null` : `${value}.length > 0`
  if (fm.struct !== undefined) return `!isDefault${fm.struct.typeName}(${value})`
  if (fm.elem === 'uuid') return `!${value}.equals(ZERO_UUID)`
  if (fm.elem === 'bytes') return `${value} !== null && ${value}.length > 0`
  return `${value} !== ${defaultExpr(fm)}`
}

function genWriter(s, ctx) {
  const lines = []
  lines.push(`export function write${s.typeName}(w: KafkaWriter, v: number, m: ${s.typeName}Input): void {`)
  const flexDecl = ctx.flexible === undefined ? 'false' : cond(ctx.flexible, ctx.valid)
  if (flexDecl !== 'false' && flexDecl !== 'true') lines.push(`  const f = ${flexDecl}`)
  const f = flexDecl === 'true' || flexDecl === 'false' ? flexDecl : 'f'
  for (const fm of s.fields) {
    const untagged = untaggedRange(fm)
    if (untagged === undefined) continue
    const c = cond(untagged, ctx.valid)
    const value = inputValue(fm)
    const isOpt = optional(fm)
    const val = isOpt ? value : `m.${fm.prop}`
    const stmt = writeValue(fm, f, val, ctx)
    lines.push(c === 'true' ? `  ${stmt}` : `  if (${c}) ${stmt}`)
  }
  const taggedFields = s.fields.filter((fm) => fm.tagged !== undefined)
  if (f !== 'false') {
    if (taggedFields.length === 0) {
      lines.push(f === 'true' ? '  w.uvarint(0)' : '  if (f) w.uvarint(0)')
    } else {
      lines.push(`  ${f === 'true' ? '' : 'if (f) '}{`)
      // The map is made only when a field is set: most messages have none.
      lines.push('    let tags: Map<number, Buffer> | undefined')
      for (const fm of taggedFields) {
        const c = cond(fm.tagged, ctx.valid)
        lines.push(`    const t${fm.tag} = ${inputValue(fm)}`)
        lines.push(`    if (${c === 'true' ? '' : `${c} && `}${notDefault(fm, `t${fm.tag}`)}) {`)
        lines.push('      const w = new KafkaWriter(64)')
        lines.push(`      ${writeValue(fm, 'true', `t${fm.tag}`, ctx)}`)
        lines.push(`      tags ??= new Map()`)
        lines.push(`      tags.set(${fm.tag}, w.toBuffer())`)
        lines.push('    }')
      }
      lines.push('    w.taggedFields(tags)')
      lines.push('  }')
    }
  }
  lines.push('}')
  return lines
    .join('\n')
    .replace(
      '(w: KafkaWriter, v: number, m: ',
      s.fields.length === 0 ? '(w: KafkaWriter, v: number, _m: ' : '(w: KafkaWriter, v: number, m: ',
    )
}

/** Fields a writer may leave out: those with a default, nullable, tagged, or absent in some version. */
function optional(fm) {
  return (
    fm.default !== undefined ||
    fm.tagged !== undefined ||
    fm.nullable !== undefined ||
    fm.versions === undefined ||
    fm.versions[0] > fm.ctxValid[0] ||
    fm.versions[1] < fm.ctxValid[1] ||
    fm.isArray
  )
}

// ---- code: types, defaults -------------------------------------------------------------------

function genTypes(s) {
  const lines = []
  lines.push(`export interface ${s.typeName} {`)
  for (const fm of s.fields) lines.push(`  ${fm.prop}: ${fieldTs(fm, false)}`)
  lines.push('}')
  lines.push('')
  lines.push(`/** What a writer takes: fields with a default, or absent in some versions, may be left out. */`)
  lines.push(`export interface ${s.typeName}Input {`)
  for (const fm of s.fields) lines.push(`  ${fm.prop}${optional(fm) ? '?' : ''}: ${fieldTs(fm, true)}`)
  lines.push('}')
  return lines.join('\n')
}

function needsDefaults(s) {
  return s.usedAsStructDefault === true
}

function genDefault(s) {
  return [
    `function default${s.typeName}(): ${s.typeName} {`,
    `  return { ${s.fields.map((fm) => `${fm.prop}: ${defaultExpr(fm)}`).join(', ')} }`,
    '}',
    '',
    `function isDefault${s.typeName}(m: ${s.typeName}Input): boolean {`,
    `  const d = default${s.typeName}()`,
    `  return ${s.fields
      .map((fm) => {
        const value = `(m.${fm.prop} ?? d.${fm.prop})`
        if (fm.isArray) return `${value}.length === 0`
        if (fm.struct !== undefined) return `isDefault${fm.struct.typeName}(${value})`
        if (fm.elem === 'uuid' || fm.elem === 'bytes')
          return `Buffer.compare(${value} ?? EMPTY_BYTES, d.${fm.prop} ?? EMPTY_BYTES) === 0`
        return `${value} === d.${fm.prop}`
      })
      .join(' && ')}`,
    '}',
  ].join('\n')
}

// ---- one message file ------------------------------------------------------------------------

function markStructDefaults(s) {
  for (const fm of s.fields) {
    if (fm.struct !== undefined) {
      if (!fm.isArray && fm.default !== 'null') fm.struct.usedAsStructDefault = true
      markStructDefaults(fm.struct)
    }
  }
}

function setCtxValid(s, valid) {
  for (const fm of s.fields) {
    fm.ctxValid = valid
    if (fm.struct !== undefined) setCtxValid(fm.struct, valid)
  }
}

export function genMessageFile(schema, source, schemaHash) {
  const valid = range(schema.validVersions)
  const ctx = {
    message: schema.name,
    valid,
    flexible: intersect(range(schema.flexibleVersions), valid),
    structs: [],
    helpers: new Map(),
    runtime: new Set(),
  }
  const top = structModel(schema.fields, schema.name, ctx)
  setCtxValid(top, valid)
  markStructDefaults(top)
  const structs = ctx.structs
  const body = []
  body.push(
    `// ${schema.name}, api key ${schema.apiKey}, versions ${schema.validVersions}, flexible ${schema.flexibleVersions}.`,
  )
  body.push(`// Generated by scripts/gen-kafka-messages.mjs from ${source}`)
  body.push(`// (schema sha256 ${schemaHash}). Do not edit: regenerate (docs/kafka-api.md §3).`)
  body.push('/* biome-ignore-all lint: generated code */')
  const code = []
  for (const s of structs) {
    code.push(genTypes(s), '')
  }
  for (const s of structs) {
    if (needsDefaults(s)) code.push(genDefault(s), '')
    code.push(genReader(s, ctx), '', genWriter(s, ctx), '')
  }
  for (const helper of [...ctx.helpers.values()].sort()) code.push(helper, '')
  const text = code.join('\n')
  const runtime = [
    ...['EMPTY_BYTES', 'ZERO_UUID', 'nullableIf', 'required'].filter((n) => new RegExp(`\\b${n}\\b`).test(text)),
    ...[...ctx.runtime].sort(),
  ]
  body.push("import { KafkaReader } from '../kafka-reader.js'")
  body.push("import { KafkaWriter } from '../kafka-writer.js'")
  if (runtime.length > 0) body.push(`import { ${runtime.join(', ')} } from '../message-runtime.js'`)
  body.push('')
  return `${body.join('\n')}${text}`
}
