import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { camelToSnakeUpper, formatConfigHelp, kebabToCamel, loadConfigLayers } from './config-layers.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function configFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-config-layers-'))
  dirs.push(dir)
  const file = join(dir, 'config.json')
  writeFileSync(file, content)
  return file
}

const keys = ['brokerId', 'host', 'port', 'dataDir']

describe('config layers', () => {
  it('converts names between camelCase, UPPER_SNAKE and kebab-case', () => {
    expect(camelToSnakeUpper('brokerId')).toBe('BROKER_ID')
    expect(camelToSnakeUpper('adminPort2')).toBe('ADMIN_PORT2')
    expect(kebabToCamel('broker-id')).toBe('brokerId')
  })

  it('lets flags win over the environment, and the environment over the file', () => {
    const file = configFile(JSON.stringify({ brokerId: 1, host: 'file-host', port: 9000, dataDir: '/file' }))
    const { values, problems } = loadConfigLayers({
      argv: ['--config', file, '--broker-id', '3', '--data-dir=/flag'],
      env: { SLUICE_BROKER_ID: '2', SLUICE_HOST: 'env-host', SLUICE_PORT: '', SLUICE_OTHER: 'ignored' },
      keys,
    })
    expect(problems).toEqual([])
    expect(values).toEqual({ brokerId: '3', host: 'env-host', port: 9000, dataDir: '/flag' })
  })

  it('reads the file named by SLUICE_CONFIG, and a flag without a value is "true"', () => {
    const file = configFile(JSON.stringify({ port: 9100 }))
    const { values, problems } = loadConfigLayers({ argv: ['--host'], env: { SLUICE_CONFIG: file }, keys })
    expect(problems).toEqual([])
    expect(values).toEqual({ port: 9100, host: 'true' })
  })

  it('lists every problem: stray arguments, unknown flags and keys, unreadable or non-object files', () => {
    const file = configFile(JSON.stringify({ port: 1, color: 'red' }))
    expect(loadConfigLayers({ argv: ['stray', '--nope', '1', '--config', file], keys }).problems).toEqual([
      'unexpected argument "stray"',
      'unknown flag --nope',
      `config file ${file}: unknown key "color"`,
    ])
    expect(loadConfigLayers({ argv: ['--config', configFile('[1]')], keys }).problems[0]).toMatch(
      /must hold a JSON object$/,
    )
    expect(loadConfigLayers({ argv: ['--config', configFile('{')], keys }).problems[0]).toMatch(
      /^cannot read config file /,
    )
  })

  it('formats --help from a schema shape: flag, environment variable, description and default', () => {
    const shape = {
      brokerId: { description: "this broker's id" },
      dataDir: { description: 'where logs live', _zod: { def: { defaultValue: './data' } } },
    }
    const text = formatConfigHelp('usage: test', { shape })
    expect(text.split('\n')).toEqual([
      'usage: test',
      'Every setting is a flag, an environment variable, or a key of a JSON file given with --config (flags win, then env, then the file).',
      '',
      "  --broker-id  SLUICE_BROKER_ID  this broker's id",
      '  --data-dir   SLUICE_DATA_DIR   where logs live (default "./data")',
      '',
    ])
  })
})
