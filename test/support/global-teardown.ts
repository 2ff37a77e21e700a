export default async function globalTeardown() {
  await (globalThis as { __dynamo?: { stop(): Promise<void> } }).__dynamo?.stop()
}
