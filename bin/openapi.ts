/** `npm run openapi`: writes openapi.json from the code (a test checks it is up to date). */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildOpenApi } from '../lib/openapi'

const file = fileURLToPath(new URL('../openapi.json', import.meta.url))
writeFileSync(file, `${JSON.stringify(buildOpenApi(), null, 2)}\n`)
console.log(`wrote ${file}`)
