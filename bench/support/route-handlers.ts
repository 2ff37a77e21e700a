import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { Config } from '../../functions/config'
import { ROUTES } from '../../functions/routes'
import type { LambdaHandler, RouteHandlers } from '../../local/http-server'
import * as localApi from '../../local/http-server'

export type Wiring = {
  config: Config
  dynamodb: DynamoDBClient
  documentClient: DynamoDBDocumentClient
}

/**
 * The routes' handlers, built over the bench's own configuration and DynamoDB client, so the
 * bench's meter sees every call they make. With the composition root (functions/composition.ts,
 * issue 18) the local server builds every route from a runtime: the bench hands it one over its
 * client. Before it, each route's module exports a `make…Handler(client, tables)`: the bench
 * builds the routes it calls (`routeKeys`) from those. The paths are held in variables so that
 * this file type-checks on either side of that change; drop the second branch once it lands.
 */
export const buildBenchRoutes = async (
  wiring: Wiring,
  routeKeys: readonly string[],
): Promise<RouteHandlers> => {
  // Every route loaded before the first timed call: the lazy ones load on their first request.
  const api = localApi as Record<string, unknown>
  const build = (api.loadRouteHandlers ?? api.buildRouteHandlers) as
    | ((runtime: unknown) => RouteHandlers | Promise<RouteHandlers>)
    | undefined
  if (build !== undefined) {
    const composition = '../../functions/composition.ts'
    const { buildRuntime } = (await import(composition)) as {
      buildRuntime: (config: Config, overrides: Omit<Wiring, 'config'>) => unknown
    }
    return build(
      buildRuntime(wiring.config, {
        dynamodb: wiring.dynamodb,
        documentClient: wiring.documentClient,
      }),
    )
  }
  const handlers: RouteHandlers = new Map()
  for (const routeKey of routeKeys) {
    const route = ROUTES.find((r) => r.routeKey === routeKey)
    if (!route) throw new Error(`no route ${routeKey}`)
    const entry = `../../${route.entry}`
    const module = (await import(entry)) as Record<string, unknown>
    const make = Object.entries(module).find(([name]) => /^make\w*Handler$/.test(name))?.[1] as
      | ((
          client: DynamoDBDocumentClient,
          tables: Config['tables'],
          index: unknown,
        ) => LambdaHandler)
      | undefined
    if (!make) throw new Error(`${route.entry} exports no make…Handler`)
    handlers.set(
      routeKey,
      make(wiring.documentClient, wiring.config.tables, wiring.config.grantListIndex),
    )
  }
  return handlers
}
