/**
 * Node-level configuration for every Sluice process comes from three layers, later ones winning:
 * a JSON file (`--config <path>` or SLUICE_CONFIG), environment variables (`SLUICE_<NAME>` in
 * UPPER_SNAKE, e.g. SLUICE_BROKER_ID), and command-line flags (`--broker-id 1` or
 * `--broker-id=1`, kebab-case). Names are normalised to camelCase. Values stay strings (or the
 * file's JSON types); each process validates the merged object with its own schema and lists
 * every violation before exiting.
 */
import { readFileSync } from 'node:fs'

export interface ConfigSources {
  readonly argv?: readonly string[]
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Only these camelCase keys are read from the environment (others would be noise). */
  readonly keys: readonly string[]
}

export interface LayeredConfig {
  readonly values: Record<string, unknown>
  /** Problems found while reading the layers (unreadable file, flag without value, unknown flag). */
  readonly problems: string[]
}

export function camelToSnakeUpper(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
}

export function kebabToCamel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

export function loadConfigLayers(sources: ConfigSources): LayeredConfig {
  const problems: string[] = []
  const flags: Record<string, unknown> = {}
  const argv = sources.argv ?? []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      problems.push(`unexpected argument "${arg}"`)
      continue
    }
    const eq = arg.indexOf('=')
    const name = kebabToCamel(arg.slice(2, eq < 0 ? undefined : eq))
    let value: string | undefined
    if (eq >= 0) value = arg.slice(eq + 1)
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i]
    else value = 'true'
    const known = name === 'config' || sources.keys.includes(name)
    if (!known) {
      problems.push(`unknown flag --${arg.slice(2, eq < 0 ? undefined : eq)}`)
      continue
    }
    flags[name] = value
  }
  const env = sources.env ?? {}
  const fromEnv: Record<string, unknown> = {}
  for (const key of sources.keys) {
    const v = env[`SLUICE_${camelToSnakeUpper(key)}`]
    if (v !== undefined && v !== '') fromEnv[key] = v
  }
  let fromFile: Record<string, unknown> = {}
  const file = (flags.config as string | undefined) ?? env.SLUICE_CONFIG
  if (file !== undefined) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        problems.push(`config file ${file} must hold a JSON object`)
      else fromFile = parsed as Record<string, unknown>
      for (const k of Object.keys(fromFile))
        if (!sources.keys.includes(k)) problems.push(`config file ${file}: unknown key "${k}"`)
    } catch (e) {
      problems.push(`cannot read config file ${file}: ${(e as Error).message}`)
    }
  }
  delete flags.config
  return { values: { ...fromFile, ...fromEnv, ...flags }, problems }
}

/**
 * `--help` text for a process config: one line per key with its flag, environment variable,
 * default and description, read from a zod object schema's shape (typed structurally, so this
 * package needs no zod): `.describe()` texts and `.default()` values.
 */
export function formatConfigHelp(usage: string, schema: { readonly shape: Record<string, unknown> }): string {
  const rows = Object.entries(schema.shape).map(([key, field]) => {
    const f = field as { description?: string; _zod?: { def?: { defaultValue?: unknown } } }
    const dflt = f._zod?.def?.defaultValue
    const flag = `--${key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`
    return {
      flag,
      env: `SLUICE_${camelToSnakeUpper(key)}`,
      dflt: dflt === undefined ? '' : `(default ${JSON.stringify(dflt)})`,
      text: f.description ?? '',
    }
  })
  const width = Math.max(...rows.map((r) => r.flag.length))
  const envWidth = Math.max(...rows.map((r) => r.env.length))
  return [
    usage,
    'Every setting is a flag, an environment variable, or a key of a JSON file given with --config (flags win, then env, then the file).',
    '',
    ...rows.map(
      (r) =>
        `  ${r.flag.padEnd(width)}  ${r.env.padEnd(envWidth)}  ${[r.text, r.dflt].filter((x) => x !== '').join(' ')}`,
    ),
    '',
  ].join('\n')
}
