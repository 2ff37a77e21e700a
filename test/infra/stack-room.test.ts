import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CONSUMERS } from '../../functions/consumers'
import { ROUTES, type Route } from '../../functions/routes'
import { TABLES } from '../../functions/table-schema'
import { TEMPLATE_PARAMETER_LIMIT } from '../../lib/alarms-stack'
import { INLINE_POLICY_NAME } from '../../lib/inline-policy-role'
import {
  type CfnResource,
  type CfnTemplate,
  CONTEXTS,
  grantsOfRole,
  PROJECT_ROOT,
  resource,
  resourcesOfType,
  synth,
} from '../support/synth'

/**
 * Room for the next routes (issue 30, docs/decisions/stack-room.md): the parent stack and each
 * nested stack at most STACK_BUDGET resources, a route's cost read from the template, and per-route
 * least privilege kept while functions share log groups, write their policies inline and the
 * management functions sit in a nested stack.
 */
const STACK_BUDGET = 350

// The same contexts as test/infra/stack.test.ts, so the run's synth cache serves both files.
const prod = synth()
const dev = synth(CONTEXTS.dev)
const full = synth(CONTEXTS.everyOption)

/** Resources CloudFormation counts: the CDK CLI adds its CDKMetadata to each template. */
const deployed = (t: CfnTemplate) =>
  Object.keys(t.Resources).length + (t.Resources.CDKMetadata ? 0 : 1)

const getAttOf = (value: unknown) => (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']

/** The ids of what one route costs: its function, role, invoke permissions, integrations, routes. */
const costOf = (t: CfnTemplate, route: Route) => {
  const fnId = `${route.id}Function`
  const roleId = getAttOf(resource(t, fnId).Properties.Role)?.[0] as string
  const permissions = resourcesOfType(t, 'AWS::Lambda::Permission')
    .filter(([, p]) => getAttOf(p.Properties.FunctionName)?.[0] === fnId)
    .map(([id]) => id)
  const integrations = resourcesOfType(t, 'AWS::ApiGatewayV2::Integration')
    .filter(([, i]) => JSON.stringify(i.Properties.IntegrationUri).includes(`"${fnId}"`))
    .map(([id]) => id)
  const routes = resourcesOfType(t, 'AWS::ApiGatewayV2::Route')
    .filter(([, r]) => integrations.some((i) => JSON.stringify(r.Properties.Target).includes(i)))
    .map(([id]) => id)
  return [fnId, roleId, ...permissions, ...integrations, ...routes]
}

/** How many of a route's resources sit in the parent and how many in the management stack. */
const placed = (s: typeof prod, route: Route) => {
  const ids = costOf(s.json, route)
  return {
    parent: ids.filter((id) => Object.hasOwn(s.parent.Resources, id)).length,
    nested: ids.filter((id) => Object.hasOwn(s.manageRaw.Resources, id)).length,
  }
}

const routesOf = (auth: Route['auth']) =>
  (ROUTES as readonly Route[]).filter((r) => r.auth === auth && r.routeKey !== '$default')

const tableKeyOf = (t: CfnTemplate, logicalId: string) =>
  (Object.keys(TABLES) as (keyof typeof TABLES)[]).find((key) => {
    const prefix = `Tables${key[0]?.toUpperCase()}${key.slice(1)}`
    return logicalId.startsWith(prefix) && t.Resources[logicalId]?.Type === 'AWS::DynamoDB::Table'
  })

describe('room for the next routes', () => {
  it(`holds at most ${STACK_BUDGET} resources in the parent and in each nested stack, with every option on`, () => {
    for (const s of [prod, dev, full]) {
      const counts = {
        parent: deployed(s.parent),
        alarms: deployed(s.alarmsRaw),
        manageFunctions: deployed(s.manageRaw),
      }
      for (const count of Object.values(counts)) expect(count).toBeLessThanOrEqual(STACK_BUDGET)
      // What the management functions read from the parent (tables, pool, log group, queues, key)
      // comes as parameters, within CloudFormation's 200.
      expect(Object.keys(s.manageRaw.Parameters ?? {}).length).toBeLessThanOrEqual(
        TEMPLATE_PARAMETER_LIMIT,
      )
      // Two nested stacks and no other: the alarms and the management functions.
      expect(
        resourcesOfType(s.parent, 'AWS::CloudFormation::Stack')
          .map(([id]) => id)
          .sort(),
      ).toEqual([s.alarmsHolder, s.manageHolder].sort())
    }
  })

  it('keeps a management route at three resources in the parent and two in its nested stack, a grant-API route at five', () => {
    for (const s of [prod, dev, full]) {
      for (const route of routesOf('user'))
        expect([route.id, placed(s, route)]).toEqual([route.id, { parent: 3, nested: 2 }])
      for (const route of routesOf('function'))
        expect([route.id, placed(s, route)]).toEqual([route.id, { parent: 5, nested: 0 }])
      // The nested stack holds the management functions and their roles, and nothing else.
      expect([...new Set(Object.values(s.manageRaw.Resources).map((r) => r.Type))].sort()).toEqual([
        'AWS::IAM::Role',
        'AWS::Lambda::Function',
      ])
      expect(
        resourcesOfType(s.manageRaw, 'AWS::Lambda::Function')
          .map(([id]) => id)
          .sort(),
      ).toEqual(
        routesOf('user')
          .map((r) => `${r.id}Function`)
          .sort(),
      )
    }
  })

  it('makes each route’s integration wait for its invoke permission (an upgrade points it at a new function)', () => {
    const t = prod.json
    for (const route of [...routesOf('user'), ...routesOf('function')]) {
      const fnId = `${route.id}Function`
      const permissions = resourcesOfType(t, 'AWS::Lambda::Permission').filter(
        ([, p]) => getAttOf(p.Properties.FunctionName)?.[0] === fnId,
      )
      const integrations = resourcesOfType(t, 'AWS::ApiGatewayV2::Integration').filter(([, i]) =>
        JSON.stringify(i.Properties.IntegrationUri).includes(`"${fnId}"`),
      )
      expect([route.id, permissions.length, integrations.length]).toEqual([route.id, 1, 1])
      const [[permissionId]] = permissions as [[string, CfnResource]]
      const [[, integration]] = integrations as [[string, CfnResource & { DependsOn?: string[] }]]
      expect(integration.DependsOn).toContain(permissionId)
      // Both with the API, in the parent: a route is never replaced by moving between stacks.
      expect(Object.hasOwn(prod.parent.Resources, permissionId)).toBe(true)
    }
  })

  it('says in docs/deploying.md how many routes still fit, from the template', () => {
    const room = (s: typeof prod) => {
      const manage = placed(s, routesOf('user')[0] as Route)
      const api = placed(s, routesOf('function')[0] as Route)
      const parentLeft = STACK_BUDGET - deployed(s.parent)
      return {
        manage: Math.min(
          Math.floor(parentLeft / manage.parent),
          Math.floor((STACK_BUDGET - deployed(s.manageRaw)) / manage.nested),
        ),
        api: Math.floor(parentLeft / api.parent),
      }
    }
    // The stage with the most resources leaves the least room: the figure holds for every stage.
    const least = [prod, dev, full].map(room).reduce((a, b) => ({
      manage: Math.min(a.manage, b.manage),
      api: Math.min(a.api, b.api),
    }))
    expect(least.manage).toBeGreaterThan(0)
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')
    const stated = page.match(
      /Room left: (\d+) more management routes[^.]*?, or (\d+) more grant-API routes/,
    )
    expect(stated?.slice(1, 3).map(Number)).toEqual([least.manage, least.api])
  })
})

describe('least privilege, route by route', () => {
  const t = prod.json

  it.each((ROUTES as readonly Route[]).map((r) => [r.id, r] as const))(
    '%s: its own role, with one inline policy and no policy resource, that allows on the tables exactly what the route declares',
    (_, route) => {
      const fnId = `${route.id}Function`
      const roleId = getAttOf(resource(t, fnId).Properties.Role)?.[0] as string
      const role = resource(t, roleId)
      expect(role.Properties.ManagedPolicyArns).toBeUndefined()
      expect(
        (role.Properties.Policies as { PolicyName: string }[]).map((p) => p.PolicyName),
      ).toEqual([INLINE_POLICY_NAME])
      expect(
        resourcesOfType(t, 'AWS::IAM::Policy').filter(([, p]) =>
          JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`),
        ),
      ).toEqual([])
      // No other function runs with it.
      expect(
        resourcesOfType(t, 'AWS::Lambda::Function').filter(
          ([, f]) => getAttOf(f.Properties.Role)?.[0] === roleId,
        ),
      ).toHaveLength(1)
      // The role sits in the stack its function sits in.
      const home = Object.hasOwn(prod.manageRaw.Resources, fnId) ? prod.manageRaw : prod.parent
      expect(Object.hasOwn(home.Resources, roleId)).toBe(true)
      // On the tables themselves: exactly the route's declared actions, table by table.
      const onTables = grantsOfRole(t, roleId).flatMap(({ action, resource: r }) => {
        const table = getAttOf(r)?.[0]
        const key = table === undefined ? undefined : tableKeyOf(t, table)
        return key === undefined ? [] : [`${key} ${action}`]
      })
      const declared = Object.entries(route.access).flatMap(([key, actions]) =>
        (actions ?? []).map((action) => `${key} ${action}`),
      )
      // A rate-limited route also updates its key's rate# item (lib/route-functions.ts rateBuckets).
      if (route.rateBuckets) declared.push('apiKeys dynamodb:UpdateItem')
      expect(onTables.sort()).toEqual(declared.sort())
    },
  )

  it.each([
    ...(ROUTES as readonly Route[]).map(
      (r) => [`${r.id}Function`, r.auth === 'user' ? 'ManageLogs' : 'ApiLogs'] as const,
    ),
    ...CONSUMERS.map((c) => [`${c.id}Function`, 'PipelineConsumerLogs'] as const),
  ])('%s: logs to its group (%s) and may write that group only', (fnId, group) => {
    for (const s of [prod, dev]) {
      const fn = resource(s.json, fnId)
      const logGroup = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref
      expect(logGroup).toMatch(new RegExp(`^${group}[0-9A-F]{8}$`))
      expect((resource(s.json, logGroup) as CfnResource).Type).toBe('AWS::Logs::LogGroup')
      const roleId = getAttOf(fn.Properties.Role)?.[0] as string
      const logs = grantsOfRole(s.json, roleId).filter(({ action }) => action.startsWith('logs:'))
      expect(logs).toEqual(
        ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
          action,
          resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
        })),
      )
    }
  })
})

describe('every function', () => {
  it('runs nodejs24.x on arm64, in the parent and in the nested stack alike (all but CDK’s own custom-resource handlers, whose runtime CDK picks)', () => {
    for (const s of [prod, dev, full]) {
      const runtimes = resourcesOfType(s.json, 'AWS::Lambda::Function').map(([id, f]) => [
        id,
        f.Properties.Runtime,
        f.Properties.Architectures,
      ])
      // The console deployment's (Python) and an ephemeral stage's bucket emptier (CDK's latest
      // Node.js for the region): CDK's code, not the service's.
      const cdkOwn = /^Custom(CDKBucketDeployment|S3AutoDeleteObjectsCustomResourceProvider)/
      const ours = runtimes.filter(([id]) => !cdkOwn.test(String(id)))
      const expected = [
        ...ROUTES.map((r) => `${r.id}Function`),
        ...CONSUMERS.map((c) => `${c.id}Function`),
        'CustomMessageFunction',
      ]
      expect(ours.map(([id]) => id).filter((id) => !expected.includes(String(id)))).toEqual([])
      expect(ours).toHaveLength(expected.length)
      for (const [id, runtime, architectures] of ours) {
        expect([id, runtime, architectures]).toEqual([id, 'nodejs24.x', ['arm64']])
      }
    }
  })
})
