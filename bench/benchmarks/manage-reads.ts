/**
 * Each list route of the management API, invoked in-process with the claims API Gateway's JWT
 * authorizer would pass, against the very DynamoDB calls it makes (recorded from the route itself
 * on the wire, then replayed bare on the same client): what the route adds is the membership and
 * role check's code, validation, mapping and logging, not its calls.
 */
import * as ddb from '@aws-sdk/client-dynamodb'
import { PutCommand } from '@aws-sdk/lib-dynamodb'
import type { Benchmark } from '../support/benchmark'
import { MANAGE_LIST_ROUTES } from '../support/context'
import { median, percentile, ratioRow, round } from '../support/report'

const BENCH_SUB = '00000000-0000-4000-8000-000000000001'
const LABELS: Record<(typeof MANAGE_LIST_ROUTES)[number], string> = {
  'GET /manage/issuers/{issuerId}/programs': 'list programs',
  'GET /manage/issuers/{issuerId}/keys': 'list keys',
  'GET /manage/issuers/{issuerId}/programs/{programId}/grants': 'list grants',
  'GET /manage/issuers/{issuerId}/audit': 'audit log',
}

type Recorded = { command: string; input: unknown }

export const benchmark: Benchmark = {
  title: 'management list routes against their bare DynamoDB calls',
  resultPath: ['management'],
  run: async (bench) => {
    const db = await bench.database()
    const { issuerId, template } = db
    await db.documentClient.send(
      new PutCommand({
        TableName: db.tables.memberships,
        Item: {
          issuerId,
          sub: BENCH_SUB,
          email: 'bench@example.com',
          role: 'owner',
          status: 'active',
          createdAt: new Date().toISOString(),
          invitedBy: 'operator CLI',
        },
      }),
    )
    const manageEvent = (routeKey: string, pathParameters: Record<string, string>) => {
      const rawPath = Object.entries(pathParameters).reduce(
        (path, [name, value]) => path.replace(`{${name}}`, value),
        routeKey.split(' ')[1] as string,
      )
      return {
        ...template,
        routeKey,
        rawPath,
        rawQueryString: '',
        headers: { host: 'bench', accept: 'application/json' },
        body: undefined,
        isBase64Encoded: false,
        pathParameters,
        requestContext: {
          ...template.requestContext,
          routeKey,
          http: { ...template.requestContext.http, method: 'GET', path: rawPath },
          authorizer: {
            jwt: { claims: { sub: BENCH_SUB, scope: 'aws.cognito.signin.user.admin' }, scopes: [] },
          },
        },
      }
    }
    let recording: Recorded[] | undefined
    db.dynamodb.middlewareStack.add(
      (next) => async (args) => {
        // The request as it goes on the wire: the operation from X-Amz-Target, the body as sent.
        const request = args.request as { headers: Record<string, string>; body?: unknown }
        const target = request.headers['x-amz-target'] ?? ''
        const body =
          request.body instanceof Uint8Array
            ? new TextDecoder().decode(request.body)
            : String(request.body ?? '{}')
        recording?.push({ command: `${target.split('.').pop()}Command`, input: JSON.parse(body) })
        return next(args)
      },
      { step: 'finalizeRequest', name: 'bench-recorder' },
    )
    const params = { issuerId, programId: db.programIds[0] as string }
    const rows = []
    const manage: Record<string, unknown> = {}
    for (const routeKey of MANAGE_LIST_ROUTES) {
      const label = LABELS[routeKey]
      const route = db.handlers.get(routeKey)
      if (!route) throw new Error(`no handler for ${routeKey}`)
      const pathParameters = routeKey.includes('{programId}') ? params : { issuerId }
      const call = async () => {
        const result = await route(manageEvent(routeKey, pathParameters) as never, db.context)
        if (result.statusCode !== 200)
          throw new Error(`${routeKey}: ${result.statusCode} ${result.body}`)
      }
      recording = []
      await call()
      const calls = recording
      recording = undefined
      const bare = async () => {
        for (const { command, input } of calls) {
          const Command = (ddb as unknown as Record<string, new (input: unknown) => never>)[command]
          if (!Command) throw new Error(`no ${command} in @aws-sdk/client-dynamodb`)
          await db.dynamodb.send(new Command(input))
        }
      }
      for (let i = 0; i < 50; i++) {
        await call()
        await bare()
      }
      const perRound: { route: number; bare: number }[] = []
      for (let r = 0; r < 3; r++) {
        const h: number[] = []
        const b: number[] = []
        for (let i = 0; i < 100; i++) {
          for (const side of i % 2 === 0 ? ['h', 'b'] : ['b', 'h']) {
            const t0 = performance.now()
            if (side === 'h') await call()
            else await bare()
            ;(side === 'h' ? h : b).push(performance.now() - t0)
          }
        }
        perRound.push({ route: percentile(h, 50), bare: percentile(b, 50) })
      }
      const routeP50 = median(perRound.map((x) => x.route))
      const bareP50 = median(perRound.map((x) => x.bare))
      manage[label] = { routeKey, calls: calls.map((c) => c.command), perRound, routeP50, bareP50 }
      rows.push(
        ratioRow(`manage: ${label} p50 (ms)`, routeP50, bareP50, 1.3, {
          baseline: `${round(bareP50)} (${calls.map((c) => c.command.replace(/Command$/, '')).join(' + ')})`,
        }),
      )
    }
    return { rows, result: manage }
  },
}
