import { parse as parseWithCsvParse } from 'csv-parse/sync'
import fc from 'fast-check'
import { csvCell, csvLine, parseCsv } from '../../functions/domain/csv'
import { wantsCsv } from '../../functions/http/routes/manage/grants-list.route'

/**
 * CSV cell by cell, in-process (functions/domain/csv.ts): what the exports write, read back by
 * csv-parse as a `,` locale's spreadsheet and a `;` locale's would. The exports through the local
 * server are test/manage/grants.manage.test.ts and test/manage/batch-export.manage.test.ts.
 */

/**
 * How a cell starts that a spreadsheet would run as a formula (OWASP's list), after any white
 * space and format characters, which some spreadsheets skip before looking.
 */
const FORMULA_LIKE = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u

/** White space and format characters a cell may start with: a spreadsheet may skip each. */
const INVISIBLE = [
  ' ',
  '\t',
  '\r',
  '\n',
  '\u000B',
  '\u000C',
  '\u0085',
  '\u00A0',
  '\u00AD',
  '\u180E',
  '\u2007',
  '\u200B',
  '\u200D',
  '\u2028',
  '\u2029',
  '\u2060',
  '\u3000',
  '\uFEFF',
]
const TRIGGERS = ['=', '+', '-', '@', '\t', '\r']

describe('CSV, cell by cell', () => {
  it.each([
    ['plain', '"plain"'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rlf', '"cr\rlf"'],
    ['=1+2', `"'=1+2"`],
    ['+1', `"'+1"`],
    ['-1', `"'-1"`],
    ['@A1', `"'@A1"`],
    ['\tTAB', `"'\tTAB"`],
    ['\rCR', `"'\rCR"`],
    ['=SUM(A1,B1)', `"'=SUM(A1,B1)"`],
    // What a reader splitting on ';' would take for the start of a cell.
    ["Bob;=cmd|' /C calc'!A0", `"Bob;'=cmd|' /C calc'!A0"`],
    ['a;+1;-2;@3', `"a;'+1;'-2;'@3"`],
    ['a;"=x', `"a;'""=x"`],
    ['two\n=lines', `"two\n'=lines"`],
    ['ends;', `"ends;'"`],
    ['', '""'],
    // White space and format characters before the formula, which some spreadsheets skip.
    [' =1', `"' =1"`],
    ['  @x', `"'  @x"`],
    ['\u00A0=1', `"'\u00A0=1"`],
    ['\u200B=1', `"'\u200B=1"`],
    ['\uFEFF=1', `"'\uFEFF=1"`],
    ['\u2028\u3000-1', `"'\u2028\u3000-1"`],
    [' \tx', `"' \tx"`],
    ['a; =b', `"a;' =b"`],
    ['a; =1+1', `"a;' =1+1"`],
    ['a;\u00A0=1', `"a;'\u00A0=1"`],
    ['a;\u200B=1', `"a;'\u200B=1"`],
    ['a;\uFEFF=1', `"a;'\uFEFF=1"`],
    ['a; " @x', `"a;' "" @x"`],
    ['two\n =lines', `"two\n' =lines"`],
    // White space before a letter is no formula.
    [' a', '" a"'],
    ['a; b', '"a; b"'],
  ])('%p is written %p', (value, written) => {
    expect(csvCell(value)).toBe(written)
  })

  it('writes numbers as they are and absent values as empty cells, every cell quoted, CRLF after each record', () => {
    expect(csvLine([7, null, undefined, 'x'])).toBe('"7","","","x"\r\n')
  })

  it('no cell starts like a formula, even behind white space or format characters, whether a reader splits on "," or on ";" (csv-parse, fast-check)', () => {
    const char = fc.constantFrom(';', ',', '"', "'", '=', '+', '-', '@', 'a', ...INVISIBLE)
    const tricky = fc.array(char, { maxLength: 12 }).map((chars) => chars.join(''))
    // A run of invisible characters, then a trigger: at the start, or after a ';' or a line break.
    const hidden = fc
      .tuple(
        fc.constantFrom('', 'a;', 'a\n', 'a\r\n', '";'),
        fc.array(fc.constantFrom(...INVISIBLE, '"'), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...TRIGGERS),
        tricky,
      )
      .map(([before, run, trigger, after]) => `${before}${run.join('')}${trigger}${after}`)
    const cell = fc.oneof(tricky, hidden)
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        (records) => {
          const text = records.map((cells) => csvLine(cells)).join('')
          // The ',' reading is strict RFC 4180 and gives back every cell, neutralised.
          const comma: string[][] = parseWithCsvParse(text, { delimiter: ',' })
          // One expect per run (not per cell): 2,000 runs of a dozen cells stay fast.
          expect(comma.map((cells) => cells.map((cell) => cell.replaceAll("'", '')))).toEqual(
            records.map((cells) => cells.map((cell) => cell.replaceAll("'", ''))),
          )
          // A ';' locale's spreadsheet reads our quotes as it can: leniently.
          const semicolon: string[][] = parseWithCsvParse(text, {
            delimiter: ';',
            relax_quotes: true,
            relax_column_count: true,
          })
          expect(
            [...comma.flat(), ...semicolon.flat()].filter((cell) => FORMULA_LIKE.test(cell)),
          ).toEqual([])
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('reads back what it writes, line breaks and quotes included', () => {
    const cells = ['a,b', 'say "hi"', 'two\r\nlines', '', 'Zoë']
    expect(parseCsv(csvLine(cells) + csvLine(['x']))).toEqual([
      { row: 1, fields: cells },
      { row: 2, fields: ['x'] },
    ])
  })

  it('reads CRLF, LF and CR line ends, drops a byte order mark, makes no record of a final line break', () => {
    expect(
      parseCsv('\uFEFFemail,amount\r\na@x.io,1\nb@x.io,2\rc@x.io,3\n\n').map((r) => [
        r.row,
        r.fields,
      ]),
    ).toEqual([
      [1, ['email', 'amount']],
      [2, ['a@x.io', '1']],
      [3, ['b@x.io', '2']],
      [4, ['c@x.io', '3']],
      [5, ['']],
    ])
    expect(() => parseCsv('a,"b\nc')).toThrow(/row 1: a quoted field is not closed/)
    expect(() => parseCsv('a,"b"c')).toThrow(/row 1: after a closing quote/)
    expect(parseCsv('a,b"c')).toEqual([{ row: 1, fields: ['a', 'b"c'] }])
  })

  it('negotiates CSV only when asked for', () => {
    expect(wantsCsv(undefined)).toBe(false)
    expect(wantsCsv('*/*')).toBe(false)
    expect(wantsCsv('application/json')).toBe(false)
    expect(wantsCsv('text/csv')).toBe(true)
    expect(wantsCsv('text/csv;q=0.5, application/json')).toBe(false)
    expect(wantsCsv('application/json;q=0.2, text/csv')).toBe(true)
    expect(wantsCsv('text/csv;q=0')).toBe(false)
  })
})
