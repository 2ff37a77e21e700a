import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import {
  type ConsumerFactories,
  type LocalPipeline,
  startLocalPipeline,
} from '../../local/pipeline'
import { runtime as testRuntime } from './runtime'

/**
 * The local pipeline (local/pipeline.ts: the grants table's stream -> GrantStream -> OfferMail ->
 * its consumer; the stream -> GrantFigures -> the figures) for the test file that calls this at its top level, over the run's DynamoDB Local
 * and the test runtime's clock, as `npm start` runs it. Started in beforeAll, stopped in afterAll.
 * `consumers` replace or add to the ones npm start plugs in (local/consumer-factories.ts).
 * `pipeline.drain()` waits until what the test wrote has gone through.
 *
 * It starts at the stream's LATEST: tables are shared by the run's test files, and another file's
 * grants written before this one started are not this file's business (those written while it
 * runs do go through; consumers must take them as they take any).
 */
export const usePipeline = (
  setup: { consumers?: ConsumerFactories; runtime?: typeof testRuntime; pollMs?: number } = {},
): LocalPipeline => {
  let started: LocalPipeline | undefined
  beforeAll(async () => {
    started = await startLocalPipeline({
      runtime: setup.runtime ?? testRuntime,
      consumers: { ...LOCAL_CONSUMERS, ...setup.consumers },
      startAt: 'LATEST',
      pollMs: setup.pollMs ?? 50,
    })
  })
  afterAll(async () => {
    await started?.stop()
  })
  const running = () => {
    if (!started) throw new Error('The pipeline starts in beforeAll: use it inside a test')
    return started
  }
  return {
    get queues() {
      return running().queues
    },
    get senders() {
      return running().senders
    },
    status: () => running().status(),
    drain: (timeoutMs) => running().drain(timeoutMs),
    runSchedule: (id) => running().runSchedule(id),
    hold: (queue, hold, letThrough) => running().hold(queue, hold, letThrough),
    stop: () => running().stop(),
  }
}

/**
 * For tests against `npm start` (another process): waits until its pipeline has taken everything
 * written before the call (`POST /_local/pipeline/drain`), and answers its status.
 */
export const drainNpmStart = async (baseUrl: string, timeoutMs = 30_000) => {
  const response = await fetch(`${baseUrl}/_local/pipeline/drain?timeoutMs=${timeoutMs}`, {
    method: 'POST',
  })
  const status = (await response.json()) as import('../../local/pipeline').PipelineStatus
  if (response.status !== 200) {
    throw new Error(`npm start's pipeline is not idle: ${JSON.stringify(status)}`)
  }
  return status
}
