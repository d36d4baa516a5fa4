/**
 * Cross-reference checks over rendered Kubernetes objects (kustomize-lite.ts), the mistakes a
 * schema cannot see: selectors that match no pod, Service ports that name no container port,
 * probes aimed at a port other than the admin port, SLUICE_* variables no process reads (a typo
 * is silently ignored by the processes), endpoint lists naming pods that do not exist, volume
 * mounts without a volume. Returns every problem found, as readable lines.
 */
import type { K8sObject } from './kustomize-lite.js'

export interface ManifestRules {
  /** camelCase config keys each role reads (packages/<role>/src/config.ts). */
  readonly roleKeys: Readonly<Record<'broker' | 'metadata', readonly string[]>>
  /** Variables the ZooKeeper image's entrypoint reads. */
  readonly zookeeperEnv: readonly string[]
}

type Container = Record<string, any>
const WORKLOAD_KINDS = new Set(['StatefulSet', 'Deployment'])

/** What `sluice console` reads from the environment (packages/cli/src/commands/console.ts). */
export const CONSOLE_ENV: readonly string[] = [
  'SLUICE_BOOTSTRAP',
  'SLUICE_CONSOLE_TOKEN',
  'SLUICE_CONSOLE_CONNECT_URL',
  'SLUICE_CONSOLE_READ_ONLY',
]

export function envNameToKey(name: string): string {
  return name
    .slice('SLUICE_'.length)
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

const subset = (small: Record<string, string> | undefined, big: Record<string, string> | undefined): boolean =>
  small !== undefined && Object.keys(small).length > 0 && Object.entries(small).every(([k, v]) => big?.[k] === v)

function podLabels(w: K8sObject): Record<string, string> | undefined {
  return w.spec?.template?.metadata?.labels
}
function containers(w: K8sObject): Container[] {
  return w.spec?.template?.spec?.containers ?? []
}

/** The role a container runs, from its command line: `sluice broker`, `sluice metadata`, or none. */
export function sluiceRole(c: Container): 'broker' | 'metadata' | undefined {
  const line = [...(c.command ?? []), ...(c.args ?? [])].join(' ')
  const m = /(?:^|\bsluice\s+)(broker|metadata)\b/.exec(line)
  return m === null ? undefined : (m[1] as 'broker' | 'metadata')
}

/** name -> value (literal, a ConfigMap's value, or `<fieldRef ...>`), env over envFrom. */
function containerEnv(c: Container, objects: K8sObject[], problems: string[], where: string): Map<string, string> {
  const env = new Map<string, string>()
  for (const from of c.envFrom ?? []) {
    const name = from.configMapRef?.name
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)
    if (cm === undefined) {
      problems.push(`${where}: envFrom names ConfigMap ${String(name)}, which is not defined`)
      continue
    }
    for (const [k, v] of Object.entries(cm.data ?? {})) env.set(k, String(v))
  }
  for (const e of c.env ?? []) {
    env.set(e.name, e.value !== undefined ? String(e.value) : `<${Object.keys(e.valueFrom ?? {})[0] ?? 'unset'}>`)
  }
  return env
}

function portNumber(c: Container, port: string | number): number | undefined {
  if (typeof port === 'number') return (c.ports ?? []).some((p: any) => p.containerPort === port) ? port : undefined
  return (c.ports ?? []).find((p: any) => p.name === port)?.containerPort
}

/** `name-<n>.<service>[...]:port` entries must name existing pods of a StatefulSet, all of them. */
function checkPodList(value: string, portSep: RegExp, objects: K8sObject[], problems: string[], where: string): void {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const seen = new Map<string, Set<number>>()
  for (const entry of entries) {
    const m = /^([a-z0-9-]+)-(\d+)\.([a-z0-9-]+)(?:\.[a-z0-9.-]+)?/.exec(entry)
    const port = Number(entry.split(portSep)[1])
    if (m === null) {
      problems.push(`${where}: "${entry}" is not <statefulset>-<ordinal>.<service>:<port>`)
      continue
    }
    const [, set, ordinal, service] = m
    const sts = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === set)
    if (sts === undefined) {
      problems.push(`${where}: "${entry}" names StatefulSet ${set}, which is not defined`)
      continue
    }
    if (sts.spec.serviceName !== service)
      problems.push(
        `${where}: "${entry}" uses service ${service}, but ${set}'s pods are named through ${String(sts.spec.serviceName)}`,
      )
    if (Number(ordinal) >= (sts.spec.replicas ?? 1))
      problems.push(
        `${where}: "${entry}" names pod ${ordinal}, but ${set} has ${String(sts.spec.replicas ?? 1)} replica(s)`,
      )
    if (!containers(sts).some((c) => (c.ports ?? []).some((p: any) => p.containerPort === port)))
      problems.push(`${where}: "${entry}": no container of ${set} listens on port ${port}`)
    seen.set(set!, (seen.get(set!) ?? new Set()).add(Number(ordinal)))
  }
  for (const [set, ordinals] of seen) {
    const replicas = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === set)?.spec.replicas ?? 1
    if (ordinals.size < replicas)
      problems.push(`${where}: lists ${ordinals.size} of the ${String(replicas)} pods of ${set}`)
  }
}

export function checkManifests(objects: K8sObject[], rules: ManifestRules): string[] {
  const problems: string[] = []
  const workloads = objects.filter((o) => WORKLOAD_KINDS.has(o.kind))
  const names = new Set<string>()
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata.name}`
    if (names.has(id)) problems.push(`${id} is defined twice`)
    names.add(id)
  }

  for (const w of workloads) {
    const where = `${w.kind}/${w.metadata.name}`
    if (!subset(w.spec?.selector?.matchLabels, podLabels(w)))
      problems.push(`${where}: selector ${JSON.stringify(w.spec?.selector?.matchLabels)} does not match its pod labels`)
    if (w.kind === 'StatefulSet') {
      const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === w.spec.serviceName)
      if (svc === undefined) problems.push(`${where}: serviceName ${String(w.spec.serviceName)} names no Service`)
      else {
        if (svc.spec.clusterIP !== 'None')
          problems.push(
            `${where}: Service ${svc.metadata.name} must be headless (clusterIP: None) for per-pod DNS names`,
          )
        if (!subset(svc.spec.selector, podLabels(w)))
          problems.push(`${where}: Service ${svc.metadata.name} does not select its pods`)
      }
    }
    const claims = new Set<string>((w.spec?.volumeClaimTemplates ?? []).map((t: any) => t.metadata.name))
    const volumes = new Set<string>((w.spec?.template?.spec?.volumes ?? []).map((v: any) => v.name))
    for (const c of containers(w)) {
      const cw = `${where} container ${String(c.name)}`
      for (const m of c.volumeMounts ?? [])
        if (!claims.has(m.name) && !volumes.has(m.name))
          problems.push(`${cw}: volumeMount ${String(m.name)} has no volume or volumeClaimTemplate`)
      if (c.resources?.requests?.cpu === undefined || c.resources?.requests?.memory === undefined)
        problems.push(`${cw}: no cpu/memory requests`)
      if (c.readinessProbe === undefined || c.livenessProbe === undefined)
        problems.push(`${cw}: needs a readiness and a liveness probe`)
      const env = containerEnv(c, objects, problems, cw)
      const text = [...env.values(), ...(c.command ?? []), ...(c.args ?? [])].join(' ')
      const role = sluiceRole(c)
      if (role !== undefined) {
        if (!String(c.image).startsWith('sluice:'))
          problems.push(`${cw}: runs sluice ${role} from image ${String(c.image)}`)
        const adminPort = Number(env.get('SLUICE_ADMIN_PORT'))
        if (!Number.isInteger(adminPort))
          problems.push(`${cw}: SLUICE_ADMIN_PORT is not set (the probes need the admin server)`)
        for (const [probe, want] of [
          ['readinessProbe', '/readyz'],
          ['livenessProbe', '/healthz'],
        ] as const) {
          const get = c[probe]?.httpGet
          if (get === undefined) {
            problems.push(`${cw}: ${probe} is not an HTTP GET`)
            continue
          }
          if (get.path !== want) problems.push(`${cw}: ${probe} asks ${String(get.path)}, expected ${want}`)
          if (portNumber(c, get.port) !== adminPort)
            problems.push(`${cw}: ${probe} port ${String(get.port)} is not the admin port ${adminPort}`)
        }
        const grpc = portNumber(c, 'grpc')
        if (grpc === undefined || String(grpc) !== env.get('SLUICE_PORT'))
          problems.push(
            `${cw}: container port grpc (${String(grpc)}) differs from SLUICE_PORT (${String(env.get('SLUICE_PORT'))})`,
          )
        if (role === 'broker') {
          // The Kafka listener's port, like gRPC's, must be what the container declares.
          const kafkaPort = portNumber(c, 'kafka')
          if (kafkaPort === undefined || String(kafkaPort) !== env.get('SLUICE_KAFKA_PORT'))
            problems.push(
              `${cw}: container port kafka (${String(kafkaPort)}) differs from SLUICE_KAFKA_PORT (${String(env.get('SLUICE_KAFKA_PORT'))})`,
            )
        }
        for (const name of env.keys()) {
          if (name.startsWith('SLUICE_')) {
            if (!rules.roleKeys[role].includes(envNameToKey(name)))
              problems.push(`${cw}: ${name} is not read by sluice ${role} (no config key ${envNameToKey(name)})`)
          } else if (!text.includes(`$(${name})`)) {
            problems.push(`${cw}: ${name} is neither a SLUICE_ setting nor used in a $(${name}) reference`)
          }
        }
        if (role === 'broker') {
          const adv = env.get('SLUICE_ADVERTISED_HOST') ?? ''
          if (!adv.includes(`.${String(w.spec?.serviceName)}.`))
            problems.push(
              `${cw}: SLUICE_ADVERTISED_HOST "${adv}" is not a per-pod name under Service ${String(w.spec?.serviceName)}`,
            )
          if (env.get('SLUICE_BROKER_ID') === undefined) problems.push(`${cw}: SLUICE_BROKER_ID is not set`)
          checkPodList(
            env.get('SLUICE_METADATA_ENDPOINTS') ?? '',
            /:/,
            objects,
            problems,
            `${cw} SLUICE_METADATA_ENDPOINTS`,
          )
        }
        if (role === 'metadata' && env.get('SLUICE_STORE') === 'zookeeper') {
          checkPodList(env.get('SLUICE_ZK_CONNECT') ?? '', /:/, objects, problems, `${cw} SLUICE_ZK_CONNECT`)
          if ((w.spec.replicas ?? 1) > 1 && !text.includes('SLUICE_CONTROLLER_ID'))
            problems.push(`${cw}: ${String(w.spec.replicas)} instances need distinct SLUICE_CONTROLLER_ID values`)
        }
      } else if (String(c.image).startsWith('sluice:') && /(?:^|\s)connect(?:\s|$)/.test(text)) {
        // A Connect worker: it reads the CLI's bootstrap and nothing else of the environment,
        // and its probes ask the REST API's /health on the port it listens on.
        for (const name of env.keys())
          if (name !== 'SLUICE_BOOTSTRAP') problems.push(`${cw}: ${name} is not read by sluice connect`)
        checkPodList(env.get('SLUICE_BOOTSTRAP') ?? '', /:/, objects, problems, `${cw} SLUICE_BOOTSTRAP`)
        const restPort = Number(/--rest-port\s+(\d+)/.exec(text)?.[1] ?? 8083)
        for (const probe of ['readinessProbe', 'livenessProbe'] as const) {
          const get = c[probe]?.httpGet
          if (get?.path !== '/health' || portNumber(c, get.port) !== restPort)
            problems.push(`${cw}: ${probe} must GET /health on the REST port ${restPort}`)
        }
      } else if (String(c.image).startsWith('sluice:') && /(?:^|\s)console(?:\s|$)/.test(text)) {
        // The web console: the CLI's bootstrap and the console's own variables only, and probes
        // on /api/session (open without the token) on the port it listens on.
        for (const name of env.keys())
          if (!CONSOLE_ENV.includes(name)) problems.push(`${cw}: ${name} is not read by sluice console`)
        checkPodList(env.get('SLUICE_BOOTSTRAP') ?? '', /:/, objects, problems, `${cw} SLUICE_BOOTSTRAP`)
        const port = Number(/--port\s+(\d+)/.exec(text)?.[1] ?? 8080)
        for (const probe of ['readinessProbe', 'livenessProbe'] as const) {
          const get = c[probe]?.httpGet
          if (get?.path !== '/api/session' || portNumber(c, get.port) !== port)
            problems.push(`${cw}: ${probe} must GET /api/session on the console port ${port}`)
        }
      } else if (String(c.image).startsWith('sluice-zookeeper:')) {
        for (const name of env.keys())
          if (!rules.zookeeperEnv.includes(name))
            problems.push(`${cw}: ${name} is not read by the ZooKeeper entrypoint`)
        checkPodList(env.get('ZK_SERVERS') ?? '', /:/, objects, problems, `${cw} ZK_SERVERS`)
      } else {
        problems.push(`${cw}: image ${String(c.image)} runs neither a Sluice role nor ZooKeeper`)
      }
    }
  }

  for (const svc of objects.filter((o) => o.kind === 'Service')) {
    const where = `Service/${svc.metadata.name}`
    const targets = workloads.filter((w) => subset(svc.spec?.selector, podLabels(w)))
    if (targets.length !== 1) {
      problems.push(`${where}: selector matches ${targets.length} workloads, expected 1`)
      continue
    }
    for (const p of svc.spec.ports ?? []) {
      const number = containers(targets[0]!)
        .map((c) => portNumber(c, p.targetPort ?? p.port))
        .find((n) => n !== undefined)
      if (number === undefined)
        problems.push(
          `${where}: port ${String(p.name)} targets ${String(p.targetPort ?? p.port)}, which no container of ${targets[0]!.metadata.name} exposes`,
        )
      else if (number !== p.port)
        problems.push(
          `${where}: port ${String(p.name)} is ${String(p.port)} but the container port is ${number} (per-pod DNS names carry the container port)`,
        )
    }
  }
  for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
    const targets = workloads.filter((w) => subset(pdb.spec?.selector?.matchLabels, podLabels(w)))
    if (targets.length !== 1)
      problems.push(
        `PodDisruptionBudget/${pdb.metadata.name}: selector matches ${targets.length} workloads, expected 1`,
      )
  }
  return problems
}
