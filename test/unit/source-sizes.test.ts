import {
  checkSizes,
  countLines,
  describeFinding,
  type Limits,
  measureSource,
} from '../../checks/source-sizes'
import { isChecked } from '../../checks/source-sizes.config'

/**
 * checks/source-sizes.ts, the check `npm run check:sizes` runs in CI, on sources made here: over
 * the limits fails, an allowance passes up to its size and fails past it, and an allowance no
 * longer needed is stale.
 */
const LIMITS: Limits = { fileLines: 500, functionLines: 150 }
const NONE = { files: {}, functions: {} }

/** A file of `lines` lines (each ends with a newline), holding no function. */
const fileOf = (lines: number) => 'export const x = 1\n'.repeat(lines)
/** `function name` whose body makes it `lines` lines long, first line to last. */
const functionOf = (name: string, lines: number) =>
  `export function ${name}() {\n${'  void 0\n'.repeat(lines - 2)}}\n`

const check = (path: string, text: string, allowed = NONE) =>
  checkSizes([measureSource(path, text)], LIMITS, allowed)

describe('files', () => {
  it('counts lines as wc -l does, plus a last line without its newline', () => {
    expect(countLines('')).toBe(0)
    expect(countLines('a\nb\n')).toBe(2)
    expect(countLines('a\nb')).toBe(2)
  })

  it('passes a file of 500 lines and fails one of 501, saying what to do', () => {
    expect(check('lib/a.ts', fileOf(500))).toEqual([])
    const findings = check('lib/a.ts', fileOf(501))
    expect(findings).toEqual([{ kind: 'file-too-long', path: 'lib/a.ts', lines: 501, limit: 500 }])
    expect(findings.map(describeFinding)).toEqual([
      'lib/a.ts: 501 lines, over the limit of 500: split it by role',
    ])
  })

  it('passes an allowed file up to its allowance and fails it once it grows', () => {
    const allowed = { files: { 'lib/a.ts': 600 }, functions: {} }
    expect(check('lib/a.ts', fileOf(600), allowed)).toEqual([])
    expect(check('lib/a.ts', fileOf(550), allowed)).toEqual([])
    expect(check('lib/a.ts', fileOf(601), allowed)).toEqual([
      { kind: 'grown', key: 'lib/a.ts', lines: 601, allowed: 600 },
    ])
  })

  it('calls an allowance stale once its file is within the limit or gone', () => {
    const allowed = { files: { 'lib/a.ts': 600, 'lib/gone.ts': 700 }, functions: {} }
    expect(check('lib/a.ts', fileOf(500), allowed)).toEqual([
      { kind: 'stale', key: 'lib/a.ts', allowed: 600, lines: 500 },
      { kind: 'stale', key: 'lib/gone.ts', allowed: 700, lines: undefined },
    ])
  })
})

describe('functions', () => {
  it('passes a function of 150 lines and fails one of 151', () => {
    expect(check('functions/core/a.ts', functionOf('run', 150))).toEqual([])
    expect(check('functions/core/a.ts', functionOf('run', 151))).toEqual([
      {
        kind: 'function-too-long',
        key: 'functions/core/a.ts run',
        line: 1,
        lines: 151,
        limit: 150,
      },
    ])
  })

  it('counts from the first token, not the comment above it', () => {
    const text = `/**\n * Why.\n */\n${functionOf('run', 150)}`
    expect(measureSource('a.ts', text).functions).toEqual([{ name: 'run', line: 4, lines: 150 }])
  })

  it('passes an allowed function up to its allowance and fails it once it grows', () => {
    const allowed = { files: {}, functions: { 'functions/core/a.ts run': 200 } }
    expect(check('functions/core/a.ts', functionOf('run', 200), allowed)).toEqual([])
    expect(check('functions/core/a.ts', functionOf('run', 201), allowed)).toEqual([
      { kind: 'grown', key: 'functions/core/a.ts run', lines: 201, allowed: 200 },
    ])
    expect(check('functions/core/a.ts', functionOf('run', 150), allowed)).toEqual([
      { kind: 'stale', key: 'functions/core/a.ts run', allowed: 200, lines: 150 },
    ])
  })

  it('measures arrows, methods and constructors, named by where they sit', () => {
    const text = [
      'export const make = (x: number) => {',
      '  const inner = () => x',
      '  return [1].map((y) => {',
      '    return y',
      '  })',
      '}',
      'class Store {',
      '  constructor() {}',
      '  get size() { return 1 }',
      '  list() {',
      '    return 1',
      '  }',
      '}',
      'const page = { render: function () { return 1 } }',
      '',
    ].join('\n')
    expect(measureSource('console/src/a.tsx', text).functions).toEqual([
      { name: 'make', line: 1, lines: 6 },
      { name: 'make/inner', line: 2, lines: 1 },
      { name: 'make/<anonymous 1>', line: 3, lines: 3 },
      { name: 'Store/constructor', line: 8, lines: 1 },
      { name: 'Store/size', line: 9, lines: 1 },
      { name: 'Store/list', line: 10, lines: 3 },
      { name: 'render', line: 14, lines: 1 },
    ])
  })

  it('parses TSX', () => {
    const text = `export const Page = () => {\n${'  void 0\n'.repeat(148)}  return <div />\n}\n`
    expect(check('console/src/pages/a.tsx', text)).toEqual([
      {
        kind: 'function-too-long',
        key: 'console/src/pages/a.tsx Page',
        line: 1,
        lines: 151,
        limit: 150,
      },
    ])
  })
})

it('checks sources, not tests, fixtures or declarations', () => {
  expect(['functions/core/a.ts', 'console/src/pages/b.tsx'].filter(isChecked)).toHaveLength(2)
  for (const path of [
    'console/src/a.test.tsx',
    'lib/fixtures/big.ts',
    'lib/x.d.ts',
    'lib/a.json',
  ]) {
    expect(isChecked(path)).toBe(false)
  }
})
