/**
 * Part of openapi.json: management routes (a Cognito access token) documented here and put in the
 * document by lib/openapi.ts. See the exports' comments for which routes.
 */

type Json = Record<string, unknown>

/** Paths of these routes, keyed as in openapi.json. */
export const manageProgramsPaths: Record<string, Json> = {}

/** Component schemas these routes use, by name. */
export const manageProgramsSchemas: Record<string, Json> = {}

/** Component parameters these routes use, by name. */
export const manageProgramsParameters: Record<string, Json> = {}
