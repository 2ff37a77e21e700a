/**
 * `npm test`'s first step (package.json `pretest`): the console's browser tests need Chromium.
 * Found, or installed where this machine allows (test/support/chromium.ts); otherwise the run
 * stops here, at once, with one line that says what to install.
 */
import { ensureChromium } from './chromium'

const result = ensureChromium()
if ('error' in result) {
  console.error(result.error)
  process.exit(1)
}
