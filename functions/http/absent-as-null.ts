/**
 * The management API shows an optional field that a record does not hold as `null`, never leaves
 * it out: the named fields of `record`, each its value or null, in the order named.
 */
export const absentAsNull = <T extends object, K extends keyof T>(record: T, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, record[key] ?? null])) as {
    [P in K]-?: Exclude<T[P], undefined> | null
  }
