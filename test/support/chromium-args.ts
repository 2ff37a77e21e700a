/**
 * The flags the issue asks for: headless, no sandbox (root in CI), and none of the browser's own
 * network traffic (updates, sync, QUIC probes), which would flood this machine's closed network.
 * playwright-core makes a fresh profile itself and refuses --user-data-dir.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
