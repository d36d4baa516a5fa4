import { describe, expect, it } from 'vitest'
import { decodeChangelogBounds, encodeChangelogBounds, restoreBoundOf } from './changelog-bounds.js'

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
})
