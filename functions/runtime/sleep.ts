/** Waits `ms`, or less if `signal` aborts first (then rejects with the signal's reason). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal))
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal as AbortSignal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/** Shaped as the AWS SDK shapes an aborted call, so one rule (problem.ts) maps both to a 503. */
const abortError = (signal: AbortSignal) =>
  Object.assign(new Error('Request aborted', { cause: signal.reason }), { name: 'AbortError' })
