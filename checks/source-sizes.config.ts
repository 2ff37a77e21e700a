import type { AllowList, Limits } from './source-sizes'

/** Issue 31: a file and a function a reader can hold. */
export const LIMITS: Limits = { fileLines: 500, functionLines: 150 }

/** Where the sources are, from the repository's root (bench/ and its frozen baselines are not). */
export const SOURCE_ROOTS = ['functions', 'console/src', 'lib', 'local', 'cli', 'bin', 'checks']

/** TypeScript sources, without tests, fixtures and declarations. */
export const isChecked = (path: string) =>
  /\.tsx?$/.test(path) &&
  !/\.d\.ts$|\.test\.tsx?$/.test(path) &&
  !/(^|\/)(__)?fixtures?(__)?\//.test(path)

/**
 * What was over the limits when the check began, at its size then: each may shrink but not grow.
 * Remove an entry when its split lands (the check says which are stale); never add one.
 */
export const ALLOWED: AllowList = {
  files: {},
  functions: {},
}
