/**
 * The API's routes, the one list both the CDK stack (one function per route) and the local server
 * read. Pure data, so importing it loads no handler code.
 */
export type Route = {
  /** Stable id: the function's construct id and the local server's handler name. */
  id: string
  /** API Gateway HTTP API route key. */
  routeKey: string
  /** Handler module, relative to the project root. */
  entry: string
}

export const ROUTES = [
  {
    id: 'GrantTokens',
    routeKey: 'POST /programs/{programId}/grant-tokens',
    entry: 'functions/grant-tokens/grant-tokens.handler.ts',
  },
  {
    id: 'GetGrant',
    routeKey: 'GET /programs/{programId}/grants/{grantId}',
    entry: 'functions/get-grant/get-grant.handler.ts',
  },
  {
    id: 'NotFound',
    routeKey: '$default',
    entry: 'functions/not-found/not-found.handler.ts',
  },
] as const satisfies readonly Route[]

/**
 * Every function's timeout. The stack sets it on each function, the local adapter's context counts
 * down from it as Lambda's does, and each request's deadline is what remains of it less a margin.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10
