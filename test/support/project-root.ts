import { resolve } from 'node:path'

/** The project's folder, for tests that read its files (without loading the CDK app). */
export const PROJECT_ROOT = resolve(__dirname, '../..')
