import type { Runtime } from '../composition'
import { makeHoldings } from '../core/holdings'
import type { RecipientHoldingsRouteDeps } from '../http/routes/recipient-holdings.route'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbHoldingsSessions } from '../stores/holdings-sessions.dynamodb'
import { issuerNames } from '../stores/issuer-names.dynamodb'

/** The recipient's holdings and their sessions over a runtime (core/holdings.ts). */
export const holdingsOver = (runtime: Runtime) => {
  const { documentClient, config } = runtime
  const clock = () => runtime.clock.now()
  return makeHoldings({
    store: new DynamoDbGrantLifeStore(documentClient, config.tables),
    sessions: new DynamoDbHoldingsSessions(documentClient, config.tables),
    clock,
    issuerName: issuerNames(documentClient, config.tables.issuers, clock),
  })
}

/** The holdings routes (GET /recipient/holdings, the session's start and end): the use case. */
export const recipientHoldingsDeps = (runtime: Runtime): RecipientHoldingsRouteDeps => ({
  holdings: holdingsOver(runtime),
})
