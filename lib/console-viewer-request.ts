import { CONSOLE_PATH, RECIPIENT_PAGES } from './console-site'

/**
 * The console's SPA routing, as one piece of JavaScript run in two places: by CloudFront, as the
 * viewer-request function of the console's behaviour (lib/console-hosting.ts), and by `npm start`
 * (local/dev-pages/console-site.ts), so the browser tests exercise the very rule CloudFront
 * applies.
 *
 * - `/` and `/app` redirect to `/app/` (the build's one base path);
 * - `/app/<page>`, a path whose last segment has no dot, is a page of the console: rewritten to
 *   `/app/index.html`, which the console routes in the browser;
 * - `/offer` is the recipient's page (the link in an offer e-mail, its token in the fragment, which
 *   never reaches a server): rewritten to `/app/offer.html`, the page's own entry of the build;
 *   `/holdings`, the recipient's holdings (the sign-in link's page), likewise to `/app/holdings.html`;
 * - anything else is a file and goes to the origin as it is: a missing file stays a miss, never the
 *   page (a script answered with HTML would fail obscurely). Nothing under `/app/assets/` is a page.
 *
 * It runs on the console's behaviour only: distribution-wide custom error responses would also
 * turn the management API's 403 and 404 into the page.
 *
 * Written for CloudFront's `cloudfront-js-2.0` runtime (plain ES5-style code that also runs in Node).
 */
export const VIEWER_REQUEST_CODE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/app') {
    return {
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: '/app/' } },
    };
  }
${RECIPIENT_PAGES.map(
  ({ path, file }) => `  if (uri === '${path}') {
    request.uri = '${CONSOLE_PATH}${file}';
    return request;
  }
`,
).join('')}  if (uri.indexOf('/app/') === 0 && uri.indexOf('/app/assets/') !== 0) {
    var last = uri.slice(uri.lastIndexOf('/') + 1);
    if (last.indexOf('.') === -1) request.uri = '/app/index.html';
  }
  return request;
}
`

/** CloudFront's viewer-request event, as far as tests and `npm start` build one. */
export type ViewerRequest = {
  method: string
  uri: string
  querystring: Record<string, unknown>
  headers: Record<string, unknown>
  cookies: Record<string, unknown>
}
export type ViewerRequestEvent = { request: ViewerRequest }

/** What the function gives back: the request (its uri maybe rewritten), or an answer of its own. */
export type ViewerRequestResult =
  | ViewerRequest
  | {
      statusCode: number
      statusDescription: string
      headers: Record<string, { value: string }>
    }

/**
 * The function's code as a callable handler. `code` is VIEWER_REQUEST_CODE unless a test hands in
 * the code it read out of the synthesized template. Our own constant source, never request data.
 */
export const compileViewerRequest = (
  code: string = VIEWER_REQUEST_CODE,
): ((event: ViewerRequestEvent) => ViewerRequestResult) =>
  new Function(`${code}\nreturn handler`)() as (event: ViewerRequestEvent) => ViewerRequestResult

/** A CloudFront viewer-request event for a path: what the function is given. */
export const viewerRequestEvent = (uri: string): ViewerRequestEvent => ({
  request: { method: 'GET', uri, querystring: {}, headers: {}, cookies: {} },
})
