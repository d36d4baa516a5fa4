/**
 * Renders the kustomizations under deploy/k8s the way `kubectl apply -k` would, for the parts of
 * kustomize they use: `resources` (files and other kustomization dirs), `patches` with a `path`
 * (strategic merge: maps merge, lists of named items merge by `name` with new items first,
 * other lists are replaced),
 * `images` (newName/newTag) and `labels` (added to metadata.labels; with includeTemplates to pod
 * templates and volume claim templates; with includeSelectors to both and to selectors). Where kubectl is installed, the
 * manifest test compares this rendering with `kubectl kustomize`. Anything else in a kustomization is an error, so a new feature cannot slip past
 * the manifest tests unrendered.
 */
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseAllDocuments } from 'yaml'

export type K8sObject = Record<string, any> & {
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images', 'labels'])

export function readYamlDocuments(file: string): unknown[] {
  // merge: compose files use YAML merge keys (`<<: *anchor`), as docker-compose reads them.
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true })
  for (const d of docs)
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`)
  return docs.map((d) => d.toJS()).filter((d) => d !== null && d !== undefined)
}

const key = (o: { kind: string; metadata: { name: string } }): string => `${o.kind}/${o.metadata.name}`

function isNamedList(a: unknown[]): boolean {
  return (
    a.length > 0 &&
    a.every((x) => typeof x === 'object' && x !== null && typeof (x as { name?: unknown }).name === 'string')
  )
}

/** Strategic merge of `patch` into `base` (returns a new value). */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) {
    if (!Array.isArray(base) || !isNamedList(patch) || !isNamedList(base)) return structuredClone(patch)
    const out = base.map((x) => structuredClone(x) as { name: string })
    const added: Array<{ name: string }> = []
    for (const p of patch as Array<{ name: string }>) {
      const i = out.findIndex((x) => x.name === p.name)
      if (i >= 0) out[i] = strategicMerge(out[i], p) as { name: string }
      else added.push(structuredClone(p))
    }
    // kustomize puts a patch's new items first (order matters: env $(VAR) sees earlier entries only).
    return [...added, ...out]
  }
  if (typeof patch === 'object' && patch !== null) {
    const out: Record<string, unknown> =
      typeof base === 'object' && base !== null && !Array.isArray(base)
        ? structuredClone(base as Record<string, unknown>)
        : {}
    for (const [k, v] of Object.entries(patch)) out[k] = v === null ? undefined : strategicMerge(out[k], v)
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
    return out
  }
  return patch
}

function eachContainer(o: K8sObject, fn: (c: Record<string, any>) => void): void {
  const spec = o.spec?.template?.spec
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) fn(c)
}

/** The objects `kubectl apply -k dir` would create, in order. */
export function renderKustomization(dir: string): K8sObject[] {
  const kfile = path.join(dir, 'kustomization.yaml')
  const [k] = readYamlDocuments(kfile) as Array<Record<string, any>>
  for (const field of Object.keys(k!))
    if (!SUPPORTED.has(field))
      throw new Error(`${kfile}: kustomize field "${field}" is not supported by kustomize-lite`)
  let objects: K8sObject[] = []
  for (const r of (k!.resources ?? []) as string[]) {
    const p = path.resolve(dir, r)
    objects.push(...(statSync(p).isDirectory() ? renderKustomization(p) : (readYamlDocuments(p) as K8sObject[])))
  }
  for (const patch of (k!.patches ?? []) as Array<{ path?: string }>) {
    if (patch.path === undefined || Object.keys(patch).length !== 1)
      throw new Error(`${kfile}: only patches with just a path are supported`)
    for (const p of readYamlDocuments(path.resolve(dir, patch.path)) as K8sObject[]) {
      const i = objects.findIndex((o) => key(o) === key(p))
      if (i < 0) throw new Error(`${kfile}: patch ${patch.path} targets ${key(p)}, which no resource defines`)
      objects[i] = strategicMerge(objects[i], p) as K8sObject
    }
  }
  for (const l of (k!.labels ?? []) as Array<{
    pairs: Record<string, string>
    includeSelectors?: boolean
    includeTemplates?: boolean
  }>) {
    objects = objects.map((o) => {
      const out = structuredClone(o)
      out.metadata.labels = { ...out.metadata.labels, ...l.pairs }
      const templates = l.includeTemplates === true || l.includeSelectors === true
      if (templates && out.spec?.template?.metadata !== undefined)
        out.spec.template.metadata.labels = { ...out.spec.template.metadata.labels, ...l.pairs }
      // kustomize labels the claims a StatefulSet creates as templates too.
      if (templates)
        for (const t of out.spec?.volumeClaimTemplates ?? []) t.metadata.labels = { ...t.metadata.labels, ...l.pairs }
      if (l.includeSelectors === true) {
        if (out.spec?.selector?.matchLabels !== undefined)
          out.spec.selector.matchLabels = { ...out.spec.selector.matchLabels, ...l.pairs }
        else if (out.kind === 'Service' && out.spec?.selector !== undefined)
          out.spec.selector = { ...out.spec.selector, ...l.pairs }
      }
      return out
    })
  }
  for (const img of (k!.images ?? []) as Array<{ name: string; newName?: string; newTag?: string }>) {
    for (const o of objects) {
      eachContainer(o, (c) => {
        const [name, tag] = String(c.image).split(':')
        if (name !== img.name) return
        c.image = `${img.newName ?? name}:${img.newTag ?? tag ?? 'latest'}`
      })
    }
  }
  return objects
}
