import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { getAbsoluteFSPath } from 'swagger-ui-dist'
import { buildOpenApi } from '../../lib/openapi'

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Virtual-share grant API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs' })</script></body></html>`

const DOCS_ASSETS: Record<string, string> = {
  '/docs/swagger-ui.css': 'text/css; charset=utf-8',
  '/docs/swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
}

/**
 * The contract (`GET /openapi.json`) and its rendered docs (`GET /docs`, Swagger UI), served from
 * node_modules (no CDN), local server only.
 */
export const serveDocs = (method: string, path: string) => {
  if (method !== 'GET') return undefined
  if (path === '/openapi.json') {
    return { type: 'application/json', body: JSON.stringify(buildOpenApi(), null, 2) }
  }
  if (path === '/docs' || path === '/docs/')
    return { type: 'text/html; charset=utf-8', body: DOCS_PAGE }
  const type = DOCS_ASSETS[path]
  if (type)
    return { type, body: readFileSync(join(getAbsoluteFSPath(), path.slice('/docs/'.length))) }
  return undefined
}
