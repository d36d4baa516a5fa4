/**
 * deploy/ manifests, checked without a cluster: every object of every kustomization (rendered by
 * kustomize-lite) validates against the Kubernetes API schemas of the `kubernetes-models`
 * package (its validators are ajv-compiled from the Kubernetes OpenAPI definitions), and the
 * cross-references hold (manifest-checks.ts). The compose files get the same env-name check.
 * Each check also runs on a broken copy, to show it can fail.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { brokerConfigSchema } from '@sluice/broker/internal'
import { metadataConfigSchema } from '@sluice/metadata/internal'
import { REPO_ROOT } from '../src/harness/docker.js'
import {
  renderKustomization,
  readYamlDocuments,
  strategicMerge,
  type K8sObject,
} from '../src/harness/kustomize-lite.js'
import { parseAllDocuments } from 'yaml'
import { CONSOLE_ENV, checkManifests, envNameToKey, type ManifestRules } from '../src/harness/manifest-checks.js'

const K8S = path.join(REPO_ROOT, 'deploy/k8s')
const KUSTOMIZATIONS = ['base', 'overlays/zookeeper']
const zookeeperEnv = [
  ...new Set(
    readFileSync(path.join(REPO_ROOT, 'deploy/zookeeper/zk-entrypoint.sh'), 'utf8').match(/\bZK_[A-Z_]+/g) ?? [],
  ),
]
// The keys each process reads from SLUICE_<KEY> (config-layers.ts reads exactly the schema's keys).
const roleKeys = { broker: Object.keys(brokerConfigSchema.shape), metadata: Object.keys(metadataConfigSchema.shape) }
const RULES: ManifestRules = { roleKeys, zookeeperEnv }

/** The kubernetes-models class for an object, e.g. apps/v1 StatefulSet -> kubernetes-models/apps/v1/StatefulSet. */
async function schemaProblems(o: K8sObject): Promise<string[]> {
  const group = o.apiVersion.includes('/') ? o.apiVersion : `v1`
  let mod: Record<string, new (data: unknown) => { validate(): void }>
  try {
    mod = await import(/* @vite-ignore */ `kubernetes-models/${group}/${o.kind}`)
  } catch {
    return [`${o.kind}/${o.metadata.name}: no schema for ${o.apiVersion} ${o.kind}`]
  }
  try {
    new mod[o.kind]!(o).validate()
    return []
  } catch (err) {
    const details = (err as { details?: Array<{ instancePath: string; message?: string }> }).details ?? []
    return [
      `${o.kind}/${o.metadata.name}: ${(err as Error).message} ${details.map((d) => `${d.instancePath} ${d.message ?? ''}`).join('; ')}`,
    ]
  }
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(path.join(dir, e.name)) : e.name.endsWith('.yaml') ? [path.join(dir, e.name)] : [],
  )
}

describe('deploy/k8s manifests', () => {
  it('every file is used by a kustomization (nothing validated is left unapplied, nothing applied unvalidated)', () => {
    const used = new Set<string>()
    for (const k of KUSTOMIZATIONS) {
      const dir = path.join(K8S, k)
      used.add(path.join(dir, 'kustomization.yaml'))
      const [spec] = readYamlDocuments(path.join(dir, 'kustomization.yaml')) as Array<{
        resources?: string[]
        patches?: Array<{ path: string }>
      }>
      for (const r of [...(spec!.resources ?? []), ...(spec!.patches ?? []).map((p) => p.path)])
        used.add(path.resolve(dir, r))
    }
    expect(yamlFiles(K8S).filter((f) => !used.has(f))).toEqual([])
  })

  for (const k of KUSTOMIZATIONS) {
    it(`${k}: every object validates against the Kubernetes API schemas`, async () => {
      const objects = renderKustomization(path.join(K8S, k))
      expect(objects.length).toBeGreaterThan(4)
      const problems = (await Promise.all(objects.map(schemaProblems))).flat()
      expect(problems).toEqual([])
    })

    it(`${k}: selectors, ports, probes, env names, endpoint lists and volumes refer to each other correctly`, () => {
      const objects = renderKustomization(path.join(K8S, k))
      expect(checkManifests(objects, RULES)).toEqual([])
      const kinds = objects.map((o) => o.kind)
      expect(kinds).toEqual(expect.arrayContaining(['ConfigMap', 'Service', 'StatefulSet', 'PodDisruptionBudget']))
    })
  }

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 15_000 })
  it.skipIf(kubectl.status !== 0)(
    'kustomize-lite renders what `kubectl kustomize` renders (where kubectl is installed)',
    () => {
      const key = (o: K8sObject): string => `${o.kind}/${o.metadata.name}`
      const sorted = (a: K8sObject[]): K8sObject[] => [...a].sort((x, y) => key(x).localeCompare(key(y)))
      for (const k of KUSTOMIZATIONS) {
        const out = spawnSync('kubectl', ['kustomize', path.join(K8S, k)], { encoding: 'utf8', timeout: 60_000 })
        expect(out.stderr, k).toBe('')
        const real = parseAllDocuments(out.stdout).map((d) => d.toJS() as K8sObject)
        expect(sorted(JSON.parse(JSON.stringify(renderKustomization(path.join(K8S, k)))) as K8sObject[]), k).toEqual(
          sorted(real),
        )
      }
    },
  )

  it('the overlay runs ZooKeeper, two metadata instances on it, and brokers that know both', () => {
    const objects = renderKustomization(path.join(K8S, 'overlays/zookeeper'))
    const sts = (name: string): K8sObject => objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === name)!
    expect(sts('zookeeper').spec.replicas).toBe(3)
    expect(sts('sluice-metadata').spec.replicas).toBe(2)
    const env = sts('sluice-metadata').spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>
    expect(env.find((e) => e.name === 'SLUICE_STORE')?.value).toBe('zookeeper')
    const brokerConfig = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'sluice-broker-config')!
    expect(brokerConfig.data.SLUICE_METADATA_ENDPOINTS.split(',')).toHaveLength(2)
  })

  it('the checks catch broken manifests', async () => {
    const objects = renderKustomization(path.join(K8S, 'overlays/zookeeper'))
    const edit = (kind: string, name: string, patch: unknown): K8sObject[] =>
      objects.map((o) => (o.kind === kind && o.metadata.name === name ? (strategicMerge(o, patch) as K8sObject) : o))
    const broker = (container: unknown): K8sObject[] =>
      edit('StatefulSet', 'sluice-broker', {
        spec: { template: { spec: { containers: [{ name: 'broker', ...(container as object) }] } } },
      })
    const cases: Array<[string, K8sObject[], RegExp]> = [
      [
        'misspelt env',
        broker({ env: [{ name: 'SLUICE_METADATA_ENDPOINT', value: 'x' }] }),
        /SLUICE_METADATA_ENDPOINT is not read by sluice broker/,
      ],
      [
        'probe on the grpc port',
        broker({ readinessProbe: { httpGet: { path: '/readyz', port: 'grpc' } } }),
        /readinessProbe port grpc is not the admin port/,
      ],
      [
        'Kafka port off',
        broker({ env: [{ name: 'SLUICE_KAFKA_PORT', value: '19092' }] }),
        /container port kafka \(9092\) differs from SLUICE_KAFKA_PORT \(19092\)/,
      ],
      [
        'liveness on /readyz',
        broker({ livenessProbe: { httpGet: { path: '/readyz', port: 'admin' } } }),
        /livenessProbe asks \/readyz/,
      ],
      [
        'selector off',
        edit('Service', 'sluice-broker', { spec: { selector: { 'app.kubernetes.io/name': 'sluice-brokers' } } }),
        /Service\/sluice-broker: selector matches 0 workloads/,
      ],
      [
        'service port off',
        edit('Service', 'zookeeper', { spec: { ports: [{ name: 'client', targetPort: 'clients' }] } }),
        /targets clients, which no container/,
      ],
      [
        'unknown mount',
        broker({ volumeMounts: [{ name: 'logs', mountPath: '/logs' }] }),
        /volumeMount logs has no volume/,
      ],
      [
        'missing pod in endpoint list',
        edit('ConfigMap', 'sluice-broker-config', {
          data: { SLUICE_METADATA_ENDPOINTS: 'sluice-metadata-0.sluice-metadata:9091' },
        }),
        /lists 1 of the 2 pods of sluice-metadata/,
      ],
      [
        'pod that does not exist',
        edit('ConfigMap', 'sluice-broker-config', {
          data: {
            SLUICE_METADATA_ENDPOINTS: 'sluice-metadata-0.sluice-metadata:9091,sluice-metadata-2.sluice-metadata:9091',
          },
        }),
        /names pod 2, but sluice-metadata has 2 replica/,
      ],
      [
        'connect bootstrap naming a broker that does not exist',
        edit('Deployment', 'sluice-connect', {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'connect', env: [{ name: 'SLUICE_BOOTSTRAP', value: 'sluice-broker-5.sluice-broker:9192' }] },
                ],
              },
            },
          },
        }),
        /SLUICE_BOOTSTRAP: "sluice-broker-5.sluice-broker:9192" names pod 5, but sluice-broker has 3 replica/,
      ],
      [
        'connect probe off its REST port',
        edit('Deployment', 'sluice-connect', {
          spec: {
            template: {
              spec: { containers: [{ name: 'connect', readinessProbe: { httpGet: { path: '/', port: 'rest' } } }] },
            },
          },
        }),
        /readinessProbe must GET \/health on the REST port 8083/,
      ],
      [
        'console probe behind the token',
        edit('Deployment', 'sluice-console', {
          spec: {
            template: {
              spec: {
                containers: [{ name: 'console', livenessProbe: { httpGet: { path: '/api/cluster', port: 'http' } } }],
              },
            },
          },
        }),
        /livenessProbe must GET \/api\/session on the console port 8080/,
      ],
      [
        'console given a broker setting',
        edit('Deployment', 'sluice-console', {
          spec: {
            template: {
              spec: { containers: [{ name: 'console', env: [{ name: 'SLUICE_BROKER_ID', value: '1' }] }] },
            },
          },
        }),
        /SLUICE_BROKER_ID is not read by sluice console/,
      ],
    ]
    for (const [what, broken, expected] of cases) {
      expect(checkManifests(broken, RULES).join('\n'), what).toMatch(expected)
    }
    const badSchema = edit('StatefulSet', 'sluice-broker', { spec: { replicas: 'three' } })
    const problems = (await Promise.all(badSchema.map(schemaProblems))).flat()
    expect(problems.join('\n')).toMatch(/StatefulSet\/sluice-broker/)
  })
})

describe('deploy/docker-compose*.yml', () => {
  const files = readdirSync(path.join(REPO_ROOT, 'deploy')).filter((f) => /^docker-compose.*\.yml$/.test(f))

  it('set only SLUICE_ variables the role they run reads, and give every Sluice service a health check', () => {
    expect(files).toEqual(
      expect.arrayContaining(['docker-compose.yml', 'docker-compose.host.yml', 'docker-compose.zookeeper.yml']),
    )
    const problems: string[] = []
    let checked = 0
    for (const f of files) {
      const [doc] = readYamlDocuments(path.join(REPO_ROOT, 'deploy', f)) as Array<{
        version: string
        services: Record<string, any>
      }>
      if (doc!.version !== '2.4')
        problems.push(`${f}: compose format ${doc!.version}, expected 2.4 (docker-compose v1)`)
      for (const [name, svc] of Object.entries(doc!.services)) {
        if ((svc.command ?? [])[0] === 'console') {
          if (svc.healthcheck?.test === undefined) problems.push(`${f} ${name}: no health check`)
          for (const key of Object.keys(svc.environment ?? {}))
            if (!CONSOLE_ENV.includes(key)) problems.push(`${f} ${name}: ${key} is not read by sluice console`)
          continue
        }
        const role = ['broker', 'metadata'].find((r) => (svc.command ?? []).includes(r)) as
          | 'broker'
          | 'metadata'
          | undefined
        if (role === undefined) continue
        if (f === 'docker-compose.yml' || f === 'docker-compose.zookeeper.yml') {
          if (svc.healthcheck?.test === undefined && !JSON.stringify(svc).includes('healthcheck'))
            problems.push(`${f} ${name}: no health check`)
        }
        for (const key of Object.keys(svc.environment ?? {})) {
          checked++
          if (!key.startsWith('SLUICE_') || !RULES.roleKeys[role].includes(envNameToKey(key)))
            problems.push(`${f} ${name}: ${key} is not read by sluice ${role}`)
        }
      }
    }
    expect(problems).toEqual([])
    // Merge keys (`<<: *broker-env`) were resolved, so the shared settings were checked too.
    expect(checked).toBeGreaterThan(40)
  })
})
