import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * The console is served under /app/ everywhere (npm start, CloudFront), so one build has one base
 * path. Everything it loads comes from our origin: no CDN, no font or script from elsewhere, and
 * no inline script (the Content-Security-Policy is `script-src 'self'`).
 */
export default defineConfig({
  base: '/app/',
  // Preact's automatic JSX runtime (no React, no compat layer).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The module preload polyfill would be needed only by browsers the console does not support.
    modulePreload: { polyfill: false },
    // A small app: one script, one stylesheet. Keep the asset as a file, never a data: URL.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      // Three pages: the console (index.html), the recipient's page (offer.html, served at /offer)
      // and the recipient's holdings (holdings.html, at /holdings), each its own entry. The
      // recipient's pages load neither the console's stylesheet (all inline src/base.css into their
      // own) nor its code.
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        offer: fileURLToPath(new URL('offer.html', import.meta.url)),
        holdings: fileURLToPath(new URL('holdings.html', import.meta.url)),
      },
    },
  },
  server: { port: 5173, strictPort: false },
})
