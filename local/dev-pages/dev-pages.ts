import { type LocalConsoleOptions, serveConsole } from './console-site'
import { serveDocs } from './docs'
import { serveMail } from './mail-viewer'

/**
 * The local server's developer pages, never in the stack and never routed like the API: the
 * contract and its docs, the mail sink, and the issuer console that CloudFront serves in AWS.
 * The server asks them first; a path none of them claims goes to the API Gateway emulation.
 */
export type DevPagesOptions = {
  /** The mail sink `GET /_local/mail` and `/_local/mail.json` show (npm start and tests only). */
  mailFile?: string
  /**
   * The issuer console at `/app/` (local/dev-pages/console-site.ts), as CloudFront serves it in
   * AWS. Without it, `/app/...` is an unknown path of the API.
   */
  console?: LocalConsoleOptions
}

export type DevPageRequest = {
  method: string
  rawPath: string
  /** The Host header, for the pages answered to loopback names only. */
  host: string | undefined
  localPort: number
}

export type DevPage = {
  status: number
  headers: Record<string, string | number>
  body: Buffer | string
}

/** The developer page for this request, or undefined when the path is the API's. */
export const serveDevPage = (
  options: DevPagesOptions,
  request: DevPageRequest,
): DevPage | undefined => {
  const { method, rawPath, host } = request
  const docs = serveDocs(method, rawPath)
  if (docs) return { status: 200, headers: { 'content-type': docs.type }, body: docs.body }
  const mail = serveMail(method, rawPath, host, options.mailFile)
  if (mail) {
    return {
      status: mail.status,
      headers: { 'content-type': mail.type, 'cache-control': 'no-store' },
      body: mail.body,
    }
  }
  const site = options.console ? serveConsole(options.console, request) : undefined
  if (site) {
    return {
      status: site.status,
      headers: { ...site.headers, 'content-length': Buffer.byteLength(site.body) },
      body: site.body,
    }
  }
  return undefined
}
