import { tableNames } from '../../functions/shared/table-schema'
import { startDynamoDbLocal } from '../../local/dynamodb-local'
import { functionEnvironment } from '../../local/local-env'
import { ensureTables } from '../../local/tables'

/**
 * Starts one in-memory DynamoDB Local for the run, on a free port, with table names of its own,
 * so a test run never touches (or collides with) a developer's `npm start`.
 */
export default async function globalSetup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'
  const dynamo = await startDynamoDbLocal()
  ;(globalThis as { __dynamo?: typeof dynamo }).__dynamo = dynamo
  const suffix = `test-${process.pid}`
  const tables = tableNames('vs', `-${suffix}`)
  // Workers are forked after this, so they inherit the environment the handlers' config reads.
  Object.assign(process.env, functionEnvironment(dynamo.endpoint, tables), {
    POWERTOOLS_SERVICE_NAME: 'virtual-share-grants-test',
  })
  const { dynamodb } = await import('../../functions/shared/dynamodb')
  await ensureTables(dynamodb, tables)
  dynamodb.destroy()
}
