#!/usr/bin/env -S npx tsx
/**
 * `npm run smoke -- --api <url> --key <TEST key> --program <TEST program id> [--console <url>]`:
 * proves a deployed stage works (`--help` says how). The steps are in cli/smoke-steps.ts.
 */
import type { Io } from '../cli/admin-cli'
import { runSmoke } from '../cli/smoke'

const io: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}

runSmoke(process.argv.slice(2), io).then((code) => {
  process.exitCode = code
})
