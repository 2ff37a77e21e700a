/**
 * What the issuer console's site sends, wherever it is served: CloudFront in AWS
 * (lib/console-hosting.ts, its response headers policy and the deployed objects' Cache-Control) and
 * `npm start` (local/dev-pages/console-site.ts). Both read this one definition, so the browser
 * tests against `npm start` prove the policy AWS sends. Pure data and string builders: no AWS or
 * Node imports.
 */

/** The console lives under this path in both places, so one build (Vite `base`) serves every stage. */
export const CONSOLE_PATH = '/app/'

/**
 * The recipient's page: its own entry of the console build (`console/offer.html`, built to
 * `offer.html` beside `index.html`, so under CONSOLE_PATH in the bucket), served at OFFER_PAGE_PATH
 * (the address offer e-mails link to) by the viewer-request function, under the same headers.
 */
export const OFFER_PAGE_FILE = 'offer.html'
export const OFFER_PAGE_PATH = '/offer'

/**
 * The recipient's holdings page, the same way: `console/holdings.html`, built to `holdings.html`,
 * served at HOLDINGS_PAGE_PATH (the address sign-in e-mails link to), under the same headers.
 */
export const HOLDINGS_PAGE_FILE = 'holdings.html'
export const HOLDINGS_PAGE_PATH = '/holdings'

/** The pages of the build served outside CONSOLE_PATH, by their paths. */
export const RECIPIENT_PAGES = [
  { path: OFFER_PAGE_PATH, file: OFFER_PAGE_FILE },
  { path: HOLDINGS_PAGE_PATH, file: HOLDINGS_PAGE_FILE },
] as const

/** The recipient page's API (functions/routes.ts), routed to the HTTP API on the page's origin. */
export const RECIPIENT_API_PATH = '/recipient/'

/** Vite's output folder for hashed files, under CONSOLE_PATH. */
export const CONSOLE_ASSETS_DIR = 'assets'

/**
 * `config.json`, next to `index.html`: the stage's values, read by the console when it starts, so
 * one build serves every stage. `npm start` makes it from the emulator it runs; the stack writes it
 * at deploy time from its own resources.
 */
export type ConsoleConfig = {
  /**
   * Where integrators call the grant API (`POST /programs/{id}/grant-tokens`), as the console shows
   * it (the "Try it" command): in AWS the HTTP API's own endpoint, never the console's origin,
   * whose CloudFront distribution routes only `/manage/*` to the API; under `npm start` the local
   * server. The console's own management calls are same-origin paths and do not read it.
   */
  grantApiUrl: string
  /** The user pool's region (`local` for the emulator). */
  region: string
  userPoolId: string
  /** The console's app client (no secret). */
  userPoolClientId: string
  /** Cognito's JSON API, ending in `/`: where `InitiateAuth` and friends are POSTed. */
  cognitoEndpoint: string
}

/**
 * An S3 bucket's regional endpoint, where the SDK's presigned POST sends the browser
 * (`https://<bucket>.s3.<region>.<urlSuffix>`, virtual-hosted style, in every region).
 */
export const bucketRegionalOrigin = (bucket: string, region: string, urlSuffix = 'amazonaws.com') =>
  `https://${bucket}.s3.${region}.${urlSuffix}`

/** Amazon Cognito's API origin in a region (`urlSuffix`: `amazonaws.com`, or the stack's token). */
export const cognitoOrigin = (region: string, urlSuffix = 'amazonaws.com') =>
  `https://cognito-idp.${region}.${urlSuffix}`

/**
 * The security headers as settings, in the shape CloudFront's response headers policy takes them
 * (lib/console-hosting.ts maps each one; test/infra/console-hosting.test.ts holds the two together).
 */
export const CONSOLE_HEADER_SETTINGS = {
  /** Two years, with subdomains: what browsers' HSTS preload lists ask for. */
  hstsMaxAgeSeconds: 63_072_000,
  hstsIncludeSubdomains: true,
  /** The console is never framed (clickjacking); CSP's frame-ancestors says the same to newer browsers. */
  frameOptions: 'DENY',
  /** Other sites learn our origin at most, never a path such as /app/programs/prg_... */
  referrerPolicy: 'strict-origin-when-cross-origin',
  contentTypeOptions: 'nosniff',
} as const

/**
 * Only our own scripts and styles (no inline code, no CDN), images of our own or inline data, and
 * fetches to our own origin (the management API, same-origin in both places), to Cognito, which
 * the browser calls directly (it allows cross-origin calls), and to the upload bucket's regional
 * endpoint (`uploads`: send to many's presigned POST; its CORS rule allows the console's origin).
 */
export const contentSecurityPolicy = (cognito?: string, uploads?: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // Without a Cognito origin (npm start before its emulator is up): our own origin only.
    ['connect-src', "'self'", ...(cognito ? [cognito] : []), ...(uploads ? [uploads] : [])].join(
      ' ',
    ),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ')

/** The headers every answer under CONSOLE_PATH carries, as `npm start` writes them. */
export const consoleSecurityHeaders = (
  cognito?: string,
  uploads?: string,
): Record<string, string> => ({
  'content-security-policy': contentSecurityPolicy(cognito, uploads),
  'strict-transport-security': `max-age=${CONSOLE_HEADER_SETTINGS.hstsMaxAgeSeconds}${
    CONSOLE_HEADER_SETTINGS.hstsIncludeSubdomains ? '; includeSubDomains' : ''
  }`,
  'x-content-type-options': CONSOLE_HEADER_SETTINGS.contentTypeOptions,
  'referrer-policy': CONSOLE_HEADER_SETTINGS.referrerPolicy,
  'x-frame-options': CONSOLE_HEADER_SETTINGS.frameOptions,
})

export const CONSOLE_CACHE_CONTROL = {
  /**
   * index.html, config.json and the other top-level files: revalidated on every load, so a deploy
   * (or a restarted `npm start`) shows at once.
   */
  pages: 'no-cache',
  /** Under assets/: Vite puts a content hash in every name, so a file never changes. */
  assets: 'public, max-age=31536000, immutable',
} as const
