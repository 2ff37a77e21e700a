import { Duration, NestedStack, type Stack } from 'aws-cdk-lib'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import type { RetentionDays } from 'aws-cdk-lib/aws-logs'
import { ENV } from '../functions/env-names'
import { FUNCTION_TIMEOUT_SECONDS, ROUTES, type Route, type RouteId } from '../functions/routes'
import { RATE_ITEM_PREFIX } from '../functions/stores/rate-leases.dynamodb'
import { type GrantListIndex, INDEX, type TableKey } from '../functions/table-schema'
import { ApiFunction, sharedLogGroup } from './api-function'
import type { GrantTables } from './grant-tables'
import type { Identity } from './identity'

export type RouteFunctionsProps = {
  projectRoot: string
  environment: Record<string, string>
  tables: GrantTables['byKey']
  identity: Identity
  grantListIndex: GrantListIndex
  logRetention: RetentionDays
  ephemeral: boolean
  logLevel: string
  serviceName: string
}

/**
 * The management routes' functions and roles, in a nested stack of the service's stack: 84
 * resources the parent no longer holds, which leaves it room for the next routes
 * (docs/decisions/stack-room.md). Their HTTP routes, integrations and invoke permissions stay
 * in the parent with the API, so the routes themselves are never replaced.
 */
export class ManageFunctionsStack extends NestedStack {
  constructor(scope: Stack, id: string) {
    super(scope, id, {
      description: `Management route functions of ${scope.stackName} (virtual-share grant service)`,
    })
  }
}

/**
 * One function a route (functions/routes.ts), its role holding exactly what the route declares:
 * the grant API's routes (an API key) in the service's stack, the management routes (a person's
 * token) in `ManageFunctionsStack`. Each group logs to one log group of the parent: Lambda names
 * each stream by function, which keeps them apart.
 */
export const routeFunctions = (stack: Stack, props: RouteFunctionsProps) => {
  const { tables: tableOf, grantListIndex } = props
  const listsGrants = (route: Route) => route.listsGrants === true
  const manage = new ManageFunctionsStack(stack, 'ManageFunctions')
  const groups = {
    function: { scope: stack, logGroup: sharedLogGroup(stack, 'ApiLogs', props) },
    user: { scope: manage, logGroup: sharedLogGroup(stack, 'ManageLogs', props) },
  } as const
  const functions = Object.fromEntries(
    (ROUTES as readonly Route[]).map((route) => {
      const group = groups[route.auth]
      const fn = new ApiFunction(group.scope, route.id, {
        logGroup: group.logGroup,
        projectRoot: props.projectRoot,
        entry: route.entry,
        // The pool id only where the function calls Cognito (inviting people).
        environment: {
          ...props.environment,
          ...(route.cognito ? { [ENV.userPoolId]: props.identity.userPool.userPoolId } : {}),
          ...(listsGrants(route) ? { [ENV.grantsListIndex]: grantListIndex } : {}),
        },
        memorySize: 512,
        timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
        logRetention: props.logRetention,
        ephemeral: props.ephemeral,
        logLevel: props.logLevel,
        serviceName: props.serviceName,
        logicalId: `${route.id}Function`,
      })
      // Exactly the actions the route declares (functions/routes.ts), on exactly its tables.
      const access: Partial<Record<TableKey, readonly string[]>> = route.access
      for (const [table, actions] of Object.entries(access) as [TableKey, string[]][]) {
        if (actions.length === 0) continue
        fn.role.addToPolicy(
          new PolicyStatement({ actions: [...actions], resources: [tableOf[table].tableArn] }),
        )
      }
      // A key's rate bucket, and nothing else of the apiKeys table: its items start `rate#`.
      if (route.rateBuckets) {
        fn.role.addToPolicy(
          new PolicyStatement({
            actions: ['dynamodb:UpdateItem'],
            resources: [tableOf.apiKeys.tableArn],
            conditions: {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_ITEM_PREFIX}*`] },
            },
          }),
        )
      }
      // ...and on exactly the indexes it declares: a Query on an index is authorised on
      // `<table ARN>/index/<name>`, never on the table's ARN.
      const indexes: Route['indexes'] = route.indexes ?? {}
      for (const [table, byIndex] of Object.entries(indexes) as [
        TableKey,
        Record<string, readonly string[]>,
      ][]) {
        for (const [index, actions] of Object.entries(byIndex)) {
          const alsoLegacy =
            listsGrants(route) &&
            table === 'grants' &&
            index === INDEX.grantsByProgramSlot &&
            grantListIndex !== INDEX.grantsByProgramSlot
          fn.role.addToPolicy(
            new PolicyStatement({
              actions: [...actions],
              resources: [index, ...(alsoLegacy ? [grantListIndex] : [])].map(
                (name) => `${tableOf[table].tableArn}/index/${name}`,
              ),
            }),
          )
        }
      }
      // ...and the Cognito actions it declares, on this stack's user pool only.
      if (route.cognito && route.cognito.length > 0) {
        fn.role.addToPolicy(
          new PolicyStatement({
            actions: [...route.cognito],
            resources: [props.identity.userPool.userPoolArn],
          }),
        )
      }
      // ...and the service's own e-mail, from the stage's SES identity only, when it says so.
      if (route.mail) props.identity.allowServiceMail(fn)
      return [route.id, fn]
    }),
  ) as Record<RouteId, ApiFunction>
  return { functions, manage }
}
