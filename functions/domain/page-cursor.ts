/**
 * A listing's opaque cursor: base64url of a position's parts, joined by spaces. A cursor is
 * trusted only when it is one this service made: its characters, its length, each part's format,
 * and that it encodes back to exactly itself, all checked before any read.
 */

/** What a time-ordered position starts with: an ISO time to the millisecond. */
export const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

export const encodeCursor = (...parts: string[]) =>
  Buffer.from(parts.join(' '), 'utf8').toString('base64url')

/** The parts a cursor stands for, one per pattern, or undefined when it is not one encodeCursor made. */
export const decodeCursor = <const P extends readonly RegExp[]>(
  cursor: unknown,
  patterns: P,
  maxLength = 100,
): { [K in keyof P]: string } | undefined => {
  if (typeof cursor !== 'string' || cursor.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    return undefined
  }
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split(' ')
  if (
    parts.length !== patterns.length ||
    patterns.some((pattern, i) => !pattern.test(parts[i] ?? ''))
  ) {
    return undefined
  }
  return encodeCursor(...parts) === cursor ? (parts as { [K in keyof P]: string }) : undefined
}
