import { countRoundTrips, freezeCheckClock, startApi } from './api'

export type Api = Awaited<ReturnType<typeof startApi>>

/**
 * The local API (test/support/api.ts `startApi`: the route handlers the stack deploys behind the
 * local server) for the test file that calls this at its top level: started before the file's
 * tests and the hooks it registers after this call, closed after them whatever happened. The
 * handle reads the started server, so `api.baseUrl` works in any test or later hook.
 */
export const useApi = (setup?: Parameters<typeof startApi>[0]): Api => {
  let started: Api | undefined
  beforeAll(async () => {
    started = await startApi(setup)
  })
  afterAll(async () => {
    await started?.close()
  })
  const running = () => {
    if (!started)
      throw new Error('The local API is not started yet: useApi() starts it in beforeAll')
    return started
  }
  return {
    get server() {
      return running().server
    },
    get port() {
      return running().port
    },
    get baseUrl() {
      return running().baseUrl
    },
    get pipeline() {
      return running().pipeline
    },
    close: () => running().close(),
  }
}

/**
 * For a file that counts DynamoDB round trips: a counter on the process's client from now on, and
 * the access cache's clock frozen before the tests, so it moves only when a test moves it
 * (advanceCheckClock): what a test checked stays checked however slow the machine, and ages
 * exactly as far as the test says. Call it before useApi().
 */
export const useRoundTripCounter = () => {
  const counter = countRoundTrips()
  beforeAll(() => {
    freezeCheckClock()
  })
  afterAll(() => {
    counter.stop()
  })
  return counter
}
