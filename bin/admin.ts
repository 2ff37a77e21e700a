#!/usr/bin/env -S npx tsx
/**
 * The admin CLI: `npm run admin -- <noun> <verb> [options]` (`--help` lists the commands).
 * Works on the local database of `npm start`, or with --stack on a deployed stage.
 */
import type { Io } from '../cli/admin-cli'
import { runCli } from '../cli/main'

// The SDK's notice that Node.js 20 support ends in 2027 is in the README; keep tool output clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

const io: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}

// The CLI's entry point: what it takes from the environment, it takes here.
runCli(process.argv.slice(2), io, { localDir: process.env.VS_LOCAL_DIR }).then((code) => {
  process.exitCode = code
})
