/**
 * One JSON POST as the console's sign-in (Cognito) and the recipient's page send them: never
 * cached; a network failure becomes the caller's own error; the answer's body read as a JSON
 * object, `{}` when it is empty or not JSON (the caller then answers by status).
 */
export const postJson = async (
  url: string,
  body: unknown,
  init: RequestInit & { headers: Record<string, string> },
  unreachable: () => Error,
): Promise<{ response: Response; data: Record<string, unknown> }> => {
  // `cache` is the browser's (this module is also type-checked where Node's RequestInit lacks it).
  const request: RequestInit & { cache: 'no-store' } = {
    ...init,
    method: 'POST',
    body: JSON.stringify(body),
    cache: 'no-store',
  }
  let response: Response
  try {
    response = await fetch(url, request)
  } catch {
    throw unreachable()
  }
  const text = await response.text()
  let data: Record<string, unknown> = {}
  try {
    data = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>)
  } catch {
    // Not JSON: the caller answers by status.
  }
  return { response, data }
}
