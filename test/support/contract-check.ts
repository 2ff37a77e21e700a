import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { buildOpenApi } from '../../lib/openapi'
import type { Call } from './api'

type Operation = { responses: Record<string, unknown> }

/**
 * openapi.json held against real answers, for the test files that check their routes' answers
 * (integrator reads, a grant's life, issue 19's recipient and management routes): every answer
 * is a status its operation documents, in a content type it lists, with a body its schema (every
 * $ref inlined) accepts, and the headers it requires; `seen` collects what was checked, so a file
 * can compare it with `documented`.
 */
export const contractCheck = () => {
  const doc = buildOpenApi()
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const resolve = (node: unknown): Record<string, unknown> => {
    let current = node as Record<string, unknown>
    while (typeof current?.$ref === 'string') {
      current = (current.$ref as string)
        .slice(2)
        .split('/')
        .reduce(
          (o: Record<string, unknown>, k) => o[k] as Record<string, unknown>,
          doc as unknown as Record<string, unknown>,
        )
    }
    return current
  }
  /** The schema with every $ref replaced by what it points at. */
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline)
    if (node === null || typeof node !== 'object') return node
    if (typeof (node as { $ref?: unknown }).$ref === 'string') return inline(resolve(node))
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]))
  }
  const operation = (path: string, method: string) =>
    (doc.paths as Record<string, Record<string, Operation>>)[path]?.[method]
  const seen = new Set<string>()

  /**
   * Checks one answer of `method path`. `examples`: the documented example is valid too, for
   * every status (`all`), for a 200 only (`ok`), or not checked (`none`).
   */
  const check = (
    path: string,
    method: string,
    answer: Call,
    { examples = 'none' }: { examples?: 'all' | 'ok' | 'none' } = {},
  ) => {
    const documented = operation(path, method)
    expect({ path, method, documented: documented !== undefined }).toEqual({
      path,
      method,
      documented: true,
    })
    const response = resolve(documented?.responses[String(answer.status)])
    expect({ path, status: answer.status, documented: response !== undefined }).toEqual({
      path,
      status: answer.status,
      documented: true,
    })
    // An answer documented without content (a 204): no body.
    if (response.content === undefined) {
      expect({ path, status: answer.status, body: answer.text }).toEqual({
        path,
        status: answer.status,
        body: '',
      })
      seen.add(`${method} ${path} ${answer.status}`)
      return
    }
    const sent = answer.headers.get('content-type') as string
    const content = resolve(response.content) as Record<
      string,
      { schema: unknown; example?: unknown }
    >
    // Documented as sent, or by its media type alone (`text/csv; charset=utf-8; header=present`
    // is `text/csv`: RFC 9110 8.3.1); a JSON body is checked parsed, any other as its text.
    const mediaType = (sent.split(';')[0] as string).trim().toLowerCase()
    const contentType = sent in content ? sent : mediaType
    expect({ path, contentType, types: Object.keys(content) }).toEqual({
      path,
      contentType,
      types: expect.arrayContaining([contentType]),
    })
    const validate = ajv.compile(inline(content[contentType]?.schema) as object)
    if (!validate(/[/+]json$/.test(mediaType) ? answer.body : answer.text)) {
      throw new Error(`${method} ${path} ${answer.status}: ${ajv.errorsText(validate.errors)}`)
    }
    const example = content[contentType]?.example
    if (
      example !== undefined &&
      (examples === 'all' || (examples === 'ok' && answer.status === 200)) &&
      !validate(example)
    ) {
      throw new Error(`${method} ${path} example: ${ajv.errorsText(validate.errors)}`)
    }
    for (const [header, spec] of Object.entries(resolve(response.headers) ?? {})) {
      const { required } = resolve(spec) as { required?: boolean }
      if (required)
        expect({ path, header, sent: answer.headers.get(header) !== null }).toEqual({
          path,
          header,
          sent: true,
        })
    }
    seen.add(`${method} ${path} ${answer.status}`)
  }

  /** Every `method path status` the document lists for the operation. */
  const documented = (path: string, method: string) =>
    Object.keys(operation(path, method)?.responses ?? {}).map(
      (status) => `${method} ${path} ${status}`,
    )

  return { doc, check, seen, documented }
}
