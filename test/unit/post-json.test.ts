import { postJson } from '../../console/src/post-json'

/** The console's one JSON POST (console/src/post-json.ts), used by its sign-in and the offer page. */
const realFetch = globalThis.fetch
afterEach(() => {
  globalThis.fetch = realFetch
})

const answering = (response: Response | Error) => {
  const calls: [string, RequestInit][] = []
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    calls.push([url, init])
    if (response instanceof Error) throw response
    return response
  }) as typeof fetch
  return calls
}

const unreachable = () => new Error('unreachable')

it('sends the body as JSON, uncached, with the caller’s headers and options', async () => {
  const calls = answering(new Response('{"ok":true}', { status: 200 }))
  const { response, data } = await postJson(
    '/x',
    { a: 1 },
    { headers: { 'Content-Type': 'application/json' }, credentials: 'omit' },
    unreachable,
  )
  expect(response.status).toBe(200)
  expect(data).toEqual({ ok: true })
  expect(calls).toEqual([
    [
      '/x',
      {
        method: 'POST',
        body: '{"a":1}',
        cache: 'no-store',
        headers: { 'Content-Type': 'application/json' },
        credentials: 'omit',
      },
    ],
  ])
})

it('reads an empty or non-JSON answer as {}, and leaves the status to the caller', async () => {
  answering(new Response('', { status: 200 }))
  expect((await postJson('/x', {}, { headers: {} }, unreachable)).data).toEqual({})
  answering(new Response('<html>bad gateway</html>', { status: 502 }))
  const { response, data } = await postJson('/x', {}, { headers: {} }, unreachable)
  expect([response.status, data]).toEqual([502, {}])
})

it('throws the caller’s own error when the network fails', async () => {
  answering(new TypeError('Failed to fetch'))
  await expect(postJson('/x', {}, { headers: {} }, unreachable)).rejects.toThrow('unreachable')
})
