type Running = { stop(): Promise<void> }

export default async function globalTeardown() {
  const running = globalThis as { __dynamo?: Running; __cognito?: Running; __browsers?: Running }
  await Promise.all([
    running.__dynamo?.stop(),
    running.__cognito?.stop(),
    running.__browsers?.stop(),
  ])
}
