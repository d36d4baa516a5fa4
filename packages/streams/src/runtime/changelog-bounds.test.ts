import { describe, expect, it } from 'vitest'
import {
  committedStreamTimeOf,
  decodeChangelogBounds,
  decodeCommitVouch,
  encodeChangelogBounds,
  restoreBoundOf,
} from './changelog-bounds.js'

const k0 = 'app-counts-changelog\u00000'
const k1 = 'app-other-changelog\u00000'

describe('changelog bounds carried by commits', () => {
  it('round-trips, and reads nothing from other metadata', () => {
    const m = encodeChangelogBounds(new Map([[k0, 2n ** 60n]]))
    expect(decodeChangelogBounds(m)).toEqual(new Map([[k0, 2n ** 60n]]))
    for (const other of [
      undefined,
      '',
      'my app metadata',
      'sluice.changelog.v1 {',
      'sluice.changelog.v1 {"a":1}',
      'sluice.changelog.v1 []',
    ])
      expect(decodeChangelogBounds(other)).toBeUndefined()
  })

  it('bounds a restore by the largest end the committed offsets vouch for', () => {
    const at = (offset: bigint, metadata?: string) => ({
      topic: 'in',
      partition: 0,
      offset,
      ...(metadata === undefined ? {} : { metadata }),
    })
    expect(restoreBoundOf([at(-1n), at(-1n)])).toEqual({ kind: 'none' })
    expect(restoreBoundOf([at(5n)])).toEqual({ kind: 'unbounded' })
    expect(restoreBoundOf([at(-1n), at(5n, 'not ours')])).toEqual({ kind: 'unbounded' })
    expect(
      restoreBoundOf([
        at(5n, encodeChangelogBounds(new Map([[k0, 7n]]))),
        at(
          9n,
          encodeChangelogBounds(
            new Map([
              [k0, 11n],
              [k1, 3n],
            ]),
          ),
        ),
      ]),
    ).toEqual({
      kind: 'bounded',
      ends: new Map([
        [k0, 11n],
        [k1, 3n],
      ]),
    })
  })

  it('carries the stream time, and still reads the v1 layout (without one)', () => {
    const m = encodeChangelogBounds(new Map([[k0, 3n]]), 75_000)
    expect(decodeCommitVouch(m)).toEqual({ bounds: new Map([[k0, 3n]]), streamTimeMs: 75_000 })
    expect(decodeCommitVouch(`sluice.changelog.v1 ${JSON.stringify({ [k0]: '4' })}`)).toEqual({
      bounds: new Map([[k0, 4n]]),
      streamTimeMs: -1,
    })
    for (const bad of ['sluice.task.v2 {"changelogs":{}}', 'sluice.task.v2 {"changelogs":{},"streamTimeMs":1.5}'])
      expect(decodeCommitVouch(bad)).toBeUndefined()
    const at = (offset: bigint, metadata: string) => ({ topic: 'in', partition: 0, offset, metadata })
    expect(
      committedStreamTimeOf([
        at(5n, encodeChangelogBounds(new Map(), 10)),
        at(6n, encodeChangelogBounds(new Map(), 30)),
        at(-1n, encodeChangelogBounds(new Map(), 99)),
        at(7n, 'not ours'),
      ]),
    ).toBe(30)
    expect(committedStreamTimeOf([at(7n, 'not ours')])).toBe(-1)
  })
})
