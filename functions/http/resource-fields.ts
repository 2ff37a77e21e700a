/**
 * The optional fields of a record as a resource shows them: each one named, `null` where the
 * record has none, so that a client always finds every field of the resource.
 */
export const nullWhereAbsent = <T extends object, K extends keyof T>(
  record: T,
  keys: readonly K[],
) =>
  Object.fromEntries(keys.map((key) => [key, record[key] ?? null])) as {
    [P in K]-?: Exclude<T[P], undefined> | null
  }
