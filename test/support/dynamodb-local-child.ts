/**
 * A process that starts DynamoDB Local and then waits to be killed (test/local/loopback-only.test.ts
 * kills it with SIGKILL and checks DynamoDB Local goes with it; SIGTERM stops it). Prints one JSON line when ready.
 */
import { startDynamoDbLocal } from '../../local/dynamodb-local'

const running = await startDynamoDbLocal({ root: process.cwd() })
console.log(JSON.stringify({ pid: running.pid, port: running.port, exposed: running.exposed }))
const timer = setInterval(() => {}, 60_000)
process.once('SIGTERM', () => {
  clearInterval(timer)
  void running.stop()
})
