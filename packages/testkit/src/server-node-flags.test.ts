import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SERVER_NODE_FLAGS } from './paths.js'

const repo = (path: string): string => new URL(`../../../${path}`, import.meta.url).pathname

/** The launchers that start a server without testkit, each with its own copy of the flags. */
const LAUNCHERS: ReadonlyArray<{ file: string; line: RegExp }> = [
  { file: 'packages/cli/bin/sluice.js', line: /^#!.*$/m },
  { file: 'packages/broker/bin/sluice-broker.js', line: /^#!.*$/m },
  { file: 'packages/metadata/bin/sluice-metadata.js', line: /^#!.*$/m },
  { file: 'deploy/Dockerfile', line: /^.*exec node .*dist\/bin\.js.*$/m },
]

describe('SERVER_NODE_FLAGS', () => {
  it.each(LAUNCHERS)('are on the node command line of $file', ({ file, line }) => {
    const found = line.exec(readFileSync(repo(file), 'utf8'))?.[0]
    expect(found, `no launcher line in ${file}`).toBeDefined()
    const words = found!.split(/\s+/)
    for (const flag of SERVER_NODE_FLAGS) expect(words).toContain(flag)
  })
})
