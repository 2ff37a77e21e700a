/**
 * The rules every free-text field shares (a recipient's name, a reason, a program's or an issuer's
 * name), written once: the grant API's schema, the management API's bodies, the rows of a batch
 * and the admin CLI all ask `textProblem`. No dependency, so every function may import it.
 */

/**
 * Control characters (C0, DEL, C1) have no place in a reason or a name and break logs and CSVs;
 * among them the line breaks LF, VT, FF, CR and NEL. The line and paragraph separators U+2028 and
 * U+2029 are not controls but break a line just the same (in a mail, an editor, a log line), so
 * `Ann\u2028Bcc: x@evil.com` would show as two lines: refused with them, under the same rule.
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]/u

/**
 * Bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069): they
 * reorder the text after them, so `"\u202Egnp.exe"` shows as `exe.png`, and an unclosed one
 * reverses the rest of a page or a terminal line ("Trojan Source", CVE-2021-42574). A name or a
 * reason needs none of them: right-to-left scripts display correctly without.
 */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/u

// Blank: nothing but white space and characters that render as nothing (zero-width space, word
// joiner, BOM, Hangul fillers, soft hyphen: Unicode's default-ignorable code points) or as an
// empty cell (braille blank). "\u200b" looks like an empty reason, and is refused as one.
const BLANK = /^[\s\p{Default_Ignorable_Code_Point}\u2800]*$/u
export const isBlank = (value: string) => BLANK.test(value)

/** The rule's wording after the field's name, for every door: `reason must not contain ...`. */
export const TEXT_RULES = {
  blank: 'must not be blank',
  control: 'must not contain control characters',
  bidi: 'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)',
  unicode: 'must be valid Unicode',
} as const

/**
 * The first of the shared rules a (non-empty) text breaks, or undefined: blank, a control
 * character, a bidirectional control, or a lone UTF-16 surrogate (which cannot be stored as UTF-8
 * without being silently replaced). Lengths are each field's own.
 */
export const textProblem = (value: string): keyof typeof TEXT_RULES | undefined => {
  if (isBlank(value)) return 'blank'
  if (CONTROL_CHARACTERS.test(value)) return 'control'
  if (BIDI_CONTROLS.test(value)) return 'bidi'
  if (!value.isWellFormed()) return 'unicode'
  return undefined
}

const BIDI_CONTROLS_ALL = new RegExp(BIDI_CONTROLS.source, 'gu')

/**
 * A text with its bidirectional controls written out (`\u202E`), for a terminal: what was stored
 * before the rule still cannot reorder the rest of a line.
 */
export const showBidiControls = (value: string) =>
  value.replace(
    BIDI_CONTROLS_ALL,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}`,
  )
