#!/usr/bin/env node
// Regenerates packages/protocol/src/kafka/messages/ from Apache Kafka's JSON message schemas
// (clients/src/main/resources/common/message/*.json). The schemas are read, never copied: the
// output holds TypeScript types and codecs, plus the schema commit and a hash of each schema.
//
// Usage (the schemas come from a git clone of apache/kafka, or a directory of the JSON files):
//   node scripts/gen-kafka-messages.mjs --kafka-repo /work/.mirror/apache+kafka/repo [--commit <sha>]
//   node scripts/gen-kafka-messages.mjs --schema-dir <dir with ProduceRequest.json ...>
//   [--out <dir>] (default packages/protocol/src/kafka/messages)
//
// Every generated file ends with the SHA-256 of its own body; a test recomputes it, so a hand
// edit fails the test suite (docs/kafka-api.md §3 says how to regenerate).
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const SCHEMA_PATH = 'clients/src/main/resources/common/message'
const DEFAULT_COMMIT = '1eb7644349cb07139d6a3c1ad1986979647cac99'

/** The APIs Sluice speaks, by the schema's name (without Request/Response). */
export const APIS = [
  'Produce',
  'Fetch',
  'ListOffsets',
  'Metadata',
  'OffsetCommit',
  'OffsetFetch',
  'FindCoordinator',
  'JoinGroup',
  'Heartbeat',
  'LeaveGroup',
  'SyncGroup',
  'DescribeGroups',
  'ListGroups',
  'ApiVersions',
  'CreateTopics',
  'DeleteTopics',
  'DeleteRecords',
  'InitProducerId',
  'OffsetForLeaderEpoch',
  'DescribeConfigs',
  'AlterConfigs',
  'CreatePartitions',
  'DeleteGroups',
  'IncrementalAlterConfigs',
  'DescribeCluster',
]

function arg(name) {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : undefined
}

function loadSchemaText(file) {
  const dir = arg('--schema-dir')
  if (dir !== undefined) return { text: readFileSync(join(dir, file), 'utf8'), source: `${dir}/${file}` }
  const repo = arg('--kafka-repo')
  if (repo === undefined) {
    throw new Error('give --kafka-repo <apache/kafka git dir> or --schema-dir <dir>')
  }
  const commit = arg('--commit') ?? DEFAULT_COMMIT
  const text = execFileSync('git', ['-C', repo, 'show', `${commit}:${SCHEMA_PATH}/${file}`], { encoding: 'utf8' })
  return { text, source: `apache/kafka@${commit.slice(0, 12)} ${SCHEMA_PATH}/${file}` }
}

/** The schema files are JSON with whole-line // comments. */
function parseSchema(text) {
  return JSON.parse(
    text
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('//'))
      .join('\n'),
  )
}

// ---- version ranges -------------------------------------------------------------------------

/** "3+", "0-5", "7", "none" as [lo, hi] (hi Infinity), or undefined for none. */
function range(spec) {
  if (spec === undefined || spec === 'none') return undefined
  if (spec.endsWith('+')) return [Number(spec.slice(0, -1)), Number.POSITIVE_INFINITY]
  const dash = spec.indexOf('-')
  if (dash > 0) return [Number(spec.slice(0, dash)), Number(spec.slice(dash + 1))]
  return [Number(spec), Number(spec)]
}

function intersect(a, b) {
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
function readValue(fm, flexible) {
  const name = JSON.stringify(fm.name)
  const nullableCond = fm.nullable === undefined ? 'false' : cond(fm.nullable, fm.versions)
  const item = (fl) =>
    fm.struct !== undefined
      ? `(r) => read${fm.struct.typeName}(r, v)`
      : ['string', 'bytes'].includes(fm.elem)
        ? `(r) => required(${readPrimitive(fm.elem, fl)}, ${JSON.stringify(`${fm.name}[]`)}, r)`
        : `(r) => ${readPrimitive(fm.elem, fl)}`
  let expr
  if (fm.isArray) {
    expr =
      flexible === 'true'
        ? `r.compactArray(${item(true)})`
        : flexible === 'false'
          ? `r.array(${item(false)})`
          : `(${flexible} ? r.compactArray(${item(true)}) : r.array(${item(false)}))`
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
      lines.push(`  const ${fm.prop}: ${fieldTs(fm, false)} = ${readValue(fm, f)}`)
      fm.isConst = true
    } else {
      lines.push(decl)
      fm.isConst = false
      if (c !== 'false') lines.push(`  if (${c}) ${fm.prop} = ${readValue(fm, f)}`)
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
        lines.push(`      ${fm.prop} = ${readValue(fm, 'true')}`)
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

function writeValue(fm, flexible, value) {
  const item =
    fm.struct !== undefined
      ? `(w, x) => write${fm.struct.typeName}(w, v, x)`
      : `(w, x) => ${writePrimitive(fm.elem, flexible === 'true', 'x')}`
  if (fm.isArray) {
    const items = fm.struct !== undefined ? item : undefined
    const mk = (fl) =>
      `w.${fl ? 'compactArray' : 'array'}(${value}, ${items ?? `(w, x) => ${writePrimitive(fm.elem, fl, 'x')}`})`
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
    const stmt = writeValue(fm, f, val)
    lines.push(c === 'true' ? `  ${stmt}` : `  if (${c}) ${stmt}`)
  }
  const taggedFields = s.fields.filter((fm) => fm.tagged !== undefined)
  if (f !== 'false') {
    if (taggedFields.length === 0) {
      lines.push(f === 'true' ? '  w.uvarint(0)' : '  if (f) w.uvarint(0)')
    } else {
      lines.push(`  ${f === 'true' ? '' : 'if (f) '}{`)
      lines.push('    const tags = new Map<number, Buffer>()')
      for (const fm of taggedFields) {
        const c = cond(fm.tagged, ctx.valid)
        lines.push(`    const t${fm.tag} = ${inputValue(fm)}`)
        lines.push(`    if (${c === 'true' ? '' : `${c} && `}${notDefault(fm, `t${fm.tag}`)}) {`)
        lines.push('      const w = new KafkaWriter(64)')
        lines.push(`      ${writeValue(fm, 'true', `t${fm.tag}`)}`)
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

function genMessageFile(schema, source, schemaHash) {
  const valid = range(schema.validVersions)
  const ctx = { message: schema.name, valid, flexible: intersect(range(schema.flexibleVersions), valid), structs: [] }
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
  const text = code.join('\n')
  const runtime = ['EMPTY_BYTES', 'ZERO_UUID', 'nullableIf', 'required'].filter((n) =>
    new RegExp(`\\b${n}\\b`).test(text),
  )
  body.push("import { KafkaReader } from '../kafka-reader.js'")
  body.push("import { KafkaWriter } from '../kafka-writer.js'")
  if (runtime.length > 0) body.push(`import { ${runtime.join(', ')} } from '../message-runtime.js'`)
  body.push('')
  return `${body.join('\n')}${text}`
}

function fileName(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()
}

/** The file with a last line holding the SHA-256 of everything above it. */
export function sealed(text) {
  const hash = createHash('sha256').update(text).digest('hex')
  return `${text}// body sha256 ${hash}\n`
}

function genIndex(apis) {
  const lines = []
  lines.push('// The Kafka APIs Sluice speaks, with their codecs. Generated by scripts/gen-kafka-messages.mjs.')
  lines.push('// Do not edit: regenerate (docs/kafka-api.md §3).')
  lines.push('/* biome-ignore-all lint: generated code */')
  lines.push("import type { KafkaApiCodec } from '../kafka-api-codec.js'")
  for (const a of apis) {
    lines.push(
      `import { read${a.name}Request, write${a.name}Request, type ${a.name}Request, type ${a.name}RequestInput } from './${fileName(a.name)}-request.js'`,
    )
    lines.push(
      `import { read${a.name}Response, write${a.name}Response, type ${a.name}Response, type ${a.name}ResponseInput } from './${fileName(a.name)}-response.js'`,
    )
  }
  for (const a of apis) {
    lines.push(`export * from './${fileName(a.name)}-request.js'`)
    lines.push(`export * from './${fileName(a.name)}-response.js'`)
  }
  lines.push('')
  for (const a of apis) {
    const flexFrom = a.flexible === undefined ? 'Number.POSITIVE_INFINITY' : String(a.flexible[0])
    lines.push(
      `export const ${a.name}Api: KafkaApiCodec<${a.name}Request, ${a.name}Response, ${a.name}RequestInput, ${a.name}ResponseInput> = {`,
    )
    lines.push(`  apiKey: ${a.apiKey},`)
    lines.push(`  name: '${a.name}',`)
    lines.push(`  minVersion: ${a.valid[0]},`)
    lines.push(`  maxVersion: ${a.valid[1]},`)
    lines.push(`  flexibleFrom: ${flexFrom},`)
    lines.push(`  readRequest: read${a.name}Request,`)
    lines.push(`  writeRequest: write${a.name}Request,`)
    lines.push(`  readResponse: read${a.name}Response,`)
    lines.push(`  writeResponse: write${a.name}Response,`)
    lines.push(`  requestHeaderVersion: (v) => (v >= ${flexFrom} ? 2 : 1),`)
    lines.push(
      a.apiKey === 18
        ? '  // ApiVersions answers with header v0 in every version, so a client that sent a version the broker\n  // does not know can still read the answer.\n  responseHeaderVersion: () => 0,'
        : `  responseHeaderVersion: (v) => (v >= ${flexFrom} ? 1 : 0),`,
    )
    lines.push('}')
    lines.push('')
  }
  lines.push('/** Every API above, by api key. */')
  lines.push(
    'export const KAFKA_API_CODECS: ReadonlyMap<number, KafkaApiCodec<unknown, unknown, any, any>> = new Map([',
  )
  for (const a of apis) lines.push(`  [${a.apiKey}, ${a.name}Api as KafkaApiCodec<unknown, unknown, any, any>],`)
  lines.push('])')
  return lines.join('\n')
}

// ---- descriptors: the schemas' shape as data, for the codec tests -------------------------------

/** [lo, hi] with hi null for "and later"; null for none. */
function rangeData(spec) {
  const r = range(spec)
  return r === undefined ? null : [r[0], Number.isFinite(r[1]) ? r[1] : null]
}

function describeFields(fields) {
  return fields.map((f) => {
    const d = { name: f.name, type: f.type, versions: rangeData(f.versions) }
    if (f.nullableVersions !== undefined) d.nullable = rangeData(f.nullableVersions)
    if (f.tag !== undefined) {
      d.tag = f.tag
      d.tagged = rangeData(f.taggedVersions)
    }
    if (f.default !== undefined) d.default = String(f.default)
    if (f.fields !== undefined) d.fields = describeFields(f.fields)
    return d
  })
}

function describeMessage(schema) {
  return {
    name: schema.name,
    apiKey: schema.apiKey,
    valid: rangeData(schema.validVersions),
    flexible: rangeData(schema.flexibleVersions),
    fields: describeFields(schema.fields),
  }
}

function genDescriptors(descriptors) {
  return [
    '// The shape of every message above as data (fields, types, version ranges, tags, defaults), for the',
    "// codec tests' reference encoder and sample builder. Generated by scripts/gen-kafka-messages.mjs.",
    '// Do not edit: regenerate (docs/kafka-api.md §3).',
    '/* biome-ignore-all lint: generated code */',
    "import type { MessageDescriptor } from '../message-descriptor.js'",
    '',
    `export const MESSAGE_DESCRIPTORS: readonly MessageDescriptor[] = ${JSON.stringify(descriptors)}`,
    '',
  ].join('\n')
}

function main() {
  const out = arg('--out') ?? join(root, 'packages/protocol/src/kafka/messages')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const apis = []
  const descriptors = []
  for (const name of APIS) {
    let req
    for (const kind of ['Request', 'Response']) {
      const { text, source } = loadSchemaText(`${name}${kind}.json`)
      const schema = parseSchema(text)
      if (schema.name !== `${name}${kind}`) throw new Error(`${name}${kind}.json names ${schema.name}`)
      const hash = createHash('sha256').update(text).digest('hex')
      writeFileSync(join(out, `${fileName(name)}-${kind.toLowerCase()}.ts`), genMessageFile(schema, source, hash))
      if (kind === 'Request') req = schema
      descriptors.push(describeMessage(schema))
    }
    const valid = range(req.validVersions)
    apis.push({ name, apiKey: req.apiKey, valid, flexible: intersect(range(req.flexibleVersions), valid) })
  }
  apis.sort((a, b) => a.apiKey - b.apiKey)
  writeFileSync(join(out, 'index.ts'), genIndex(apis))
  writeFileSync(join(out, 'descriptors.ts'), genDescriptors(descriptors))
  // Formatted like the rest of the repo (readable diffs), then sealed with the hash of the result.
  execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', '--no-errors-on-unmatched', out], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (const file of readdirSync(out)) writeFileSync(join(out, file), sealed(readFileSync(join(out, file), 'utf8')))
  process.stdout.write(`wrote ${apis.length * 2 + 1} files to ${out}\n`)
}

main()
