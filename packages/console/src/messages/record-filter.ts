/**
 * The message browser's server-side filter, parsed by a small hand-written parser and applied
 * as data, never as code: `q` is a byte substring of the key or the value (case-sensitive, so
 * it works on binary records too); `jsonPath` is `$.a.b[0]["odd key"]` optionally followed by
 * `=<literal>`, matching records whose value is JSON with that path present (and equal).
 * The literal is JSON (`"alice"`, `5`, `true`, `null`) or else a bare word taken as text, and a
 * bare `5` also matches the string "5". Path steps read only a value's own properties, so
 * `constructor`, `__proto__` or `toString` name nothing unless the record itself has them.
 */
import { badRequest } from '../errors.js'

export type PathStep =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }

export interface JsonPathFilter {
  readonly kind: 'jsonPath'
  readonly path: readonly PathStep[]
  /** Absent: the path only has to exist. */
  readonly equals?: { readonly value: unknown; readonly text: string }
}

export interface SubstringFilter {
  readonly kind: 'substring'
  readonly needle: Buffer
}

export type RecordFilter = SubstringFilter | JsonPathFilter

const MAX_FILTER_CHARS = 1000
const MAX_PATH_STEPS = 32
const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*/

/** `$.a.b[0]["x y"]=literal`; a malformed path is a 400 saying where it went wrong. */
export function parseJsonPath(text: string): JsonPathFilter {
  if (text.length > MAX_FILTER_CHARS) throw badRequest(`jsonPath is longer than ${MAX_FILTER_CHARS} characters`)
  const src = text.trim()
  if (!src.startsWith('$')) throw badRequest('jsonPath must start with $ (e.g. $.user=alice)')
  const path: PathStep[] = []
  let i = 1
  const fail = (what: string): never => {
    throw badRequest(`jsonPath: ${what} at character ${i + 1} of "${src}"`)
  }
  while (i < src.length && src[i] !== '=' && src[i] !== ' ') {
    if (path.length >= MAX_PATH_STEPS) fail(`more than ${MAX_PATH_STEPS} steps`)
    if (src[i] === '.') {
      const m = NAME.exec(src.slice(i + 1))
      if (m === null) fail('expected a property name after "."')
      path.push({ kind: 'name', name: m![0] })
      i += 1 + m![0].length
    } else if (src[i] === '[') {
      const close = findBracketEnd(src, i + 1)
      if (close < 0) fail('unclosed "["')
      const inner = src.slice(i + 1, close).trim()
      if (/^\d+$/.test(inner)) path.push({ kind: 'index', index: Number(inner) })
      else if (inner.startsWith('"')) {
        let name: unknown
        try {
          name = JSON.parse(inner)
        } catch {
          fail('expected a quoted property name inside [ ]')
        }
        if (typeof name !== 'string') fail('expected a quoted property name inside [ ]')
        path.push({ kind: 'name', name: name as string })
      } else fail('expected an index or a quoted name inside [ ]')
      i = close + 1
    } else fail(`unexpected "${src[i]}"`)
  }
  const rest = src.slice(i).trim()
  if (rest === '') return { kind: 'jsonPath', path }
  const m = /^==?\s*(.*)$/s.exec(rest)
  if (m === null) fail('expected "=" and a value after the path')
  const literal = m![1]!.trim()
  if (literal === '') fail('expected a value after "="')
  return { kind: 'jsonPath', path, equals: { value: literalValue(literal), text: unquote(literal) } }
}

/** The end of a [ … ] step, skipping a "…" string (which may hold "]" or escaped quotes). */
function findBracketEnd(src: string, from: number): number {
  let inString = false
  for (let j = from; j < src.length; j++) {
    const c = src[j]
    if (inString) {
      if (c === '\\') j++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === ']') return j
  }
  return -1
}

/** JSON.parse only ever builds data; anything that is not JSON is the text itself. */
function literalValue(literal: string): unknown {
  try {
    return JSON.parse(literal) as unknown
  } catch {
    return literal
  }
}

const unquote = (literal: string): string => {
  const v = literalValue(literal)
  return typeof v === 'string' ? v : literal
}

/** The value at `path` inside parsed JSON, reading own properties only. */
export function lookup(root: unknown, path: readonly PathStep[]): { found: boolean; value?: unknown } {
  let at: unknown = root
  for (const step of path) {
    if (step.kind === 'index') {
      if (!Array.isArray(at) || step.index >= at.length) return { found: false }
      at = at[step.index]
    } else {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, step.name))
        return { found: false }
      at = (at as Record<string, unknown>)[step.name]
    }
  }
  return { found: true, value: at }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  return JSON.stringify(a) === JSON.stringify(b)
}

export function matchesJsonPath(filter: JsonPathFilter, parsed: unknown): boolean {
  const r = lookup(parsed, filter.path)
  if (!r.found) return false
  if (filter.equals === undefined) return true
  const v = r.value
  if (sameJson(v, filter.equals.value)) return true
  // A bare `5` or `true` also finds "5" or "true" stored as text, and "5" the number 5.
  return (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && String(v) === filter.equals.text
}

/** The filter of a browse request: `q` or `jsonPath` (not both), or none. */
export function parseRecordFilter(q: string | null, jsonPath: string | null): RecordFilter | undefined {
  const hasQ = q !== null && q !== ''
  const hasPath = jsonPath !== null && jsonPath.trim() !== ''
  if (hasQ && hasPath) throw badRequest('give q or jsonPath, not both')
  if (hasQ) {
    if (q.length > MAX_FILTER_CHARS) throw badRequest(`q is longer than ${MAX_FILTER_CHARS} characters`)
    return { kind: 'substring', needle: Buffer.from(q, 'utf8') }
  }
  if (hasPath) return parseJsonPath(jsonPath)
  return undefined
}

/** Whether a record passes; `parseValue` yields the value's JSON (undefined when it is not JSON). */
export function recordMatches(
  filter: RecordFilter,
  key: Buffer | null,
  value: Buffer | null,
  parseValue: () => unknown,
): boolean {
  if (filter.kind === 'substring')
    return key?.includes(filter.needle) === true || value?.includes(filter.needle) === true
  const parsed = parseValue()
  return parsed !== undefined && matchesJsonPath(filter, parsed)
}
