import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The fixture's files, so tests can compare what was served with what is on disk. */
export const FIXTURE_FILES = {
  'index.html':
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console</title><script type="module" crossorigin src="/app/assets/index-Bx1_a-9.js"></script><link rel="stylesheet" href="/app/assets/index-Cy2.css"></head><body><div id="app"></div></body></html>\n',
  'assets/index-Bx1_a-9.js': 'document.title = "Console"\n',
  'assets/index-Cy2.css': 'body { margin: 0 }\n',
  // The recipient's page: its own entry, beside the console's (console/offer.html).
  'offer.html':
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your offer</title><script type="module" crossorigin src="/app/assets/offer-Dz3.js"></script></head><body><div id="offer"></div></body></html>\n',
  'assets/offer-Dz3.js': 'document.title = "Your offer"\n',
  // The recipient's holdings page: its own entry too (console/holdings.html).
  'holdings.html':
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your holdings</title><script type="module" crossorigin src="/app/assets/holdings-Ew4.js"></script></head><body><div id="root"></div></body></html>\n',
  'assets/holdings-Ew4.js': 'document.title = "Your holdings"\n',
  'favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"></svg>\n',
  // A config.json left in a build by a dev set-up: both the stack and npm start serve their own.
  'config.json': '{"grantApiUrl":"http://localhost:5173"}\n',
} as const

/**
 * A built console as Vite lays it out (index.html, hashed files under assets/), in a fresh
 * temporary folder: tests serve and deploy it instead of console/dist, so they need no console build
 * and do not move with the console's code.
 */
export const makeConsoleDist = (root = mkdtempSync(join(tmpdir(), 'console-dist-'))) => {
  mkdirSync(join(root, 'assets'), { recursive: true })
  for (const [name, text] of Object.entries(FIXTURE_FILES)) writeFileSync(join(root, name), text)
  return root
}
