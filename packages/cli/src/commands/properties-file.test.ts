import { describe, expect, it } from 'vitest'
import { parseProperties } from './properties-file.js'

describe('parseProperties (Java .properties, as Kafka Connect reads its files)', () => {
  it('reads backslash escapes as Java does: a regex and a Windows path keep one backslash', () => {
    expect(
      parseProperties(
        [
          'table.include.list=public\\\\.(customers|orders)',
          'file=C:\\\\data\\\\in.txt',
          'tabbed=a\\tb',
          'unicode=caf\\u00e9',
          'plain\\:key\\=x = value: with = signs',
          'other=\\q',
        ].join('\n'),
        'f',
      ),
    ).toEqual({
      'table.include.list': 'public\\.(customers|orders)',
      file: 'C:\\data\\in.txt',
      tabbed: 'a\tb',
      unicode: 'café',
      'plain:key=x': 'value: with = signs',
      other: 'q',
    })
  })

  it('joins a line ending in an odd number of backslashes with the next, dropping its indentation', () => {
    expect(
      parseProperties('transforms=a,\\\n    b,\\\n    c\neven=x\\\\\nnext=y\n# not continued \\\nz=1', 'f'),
    ).toEqual({
      transforms: 'a,b,c',
      even: 'x\\',
      next: 'y',
      z: '1',
    })
  })

  it('refuses a line without a separator, naming the file', () => {
    expect(() => parseProperties('name=a\njust words', 'c.properties')).toThrow(
      /c.properties: cannot read the line "just words"/,
    )
    expect(() => parseProperties('=value', 'c.properties')).toThrow(/c.properties/)
  })
})
