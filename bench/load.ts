/**
 * Load generator, run as its own process so it does not share the server's event loop:
 * `node --import tsx bench/load.ts '<json>'` prints autocannon's result as JSON.
 */
import autocannon from 'autocannon'

const { url, paths, headers, body, connections, duration } = JSON.parse(process.argv[2] as string)
let n = 0
const result = await autocannon({
  url,
  connections,
  duration,
  requests: [
    {
      method: 'POST',
      headers,
      body,
      setupRequest: (request: { path?: string }) => ({
        ...request,
        path: paths[n++ % paths.length],
      }),
    },
  ],
})
process.stdout.write(JSON.stringify(result))
