import { randomUUID } from 'node:crypto'
import { type ServerResponse, STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'

/** The answers API Gateway gives itself, without calling a function: `{"message": ...}` JSON. */
const GATEWAY_MESSAGES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  408: 'Request Timeout',
  413: 'Request Entity Too Large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
}

const gatewayBody = (status: number) =>
  JSON.stringify({ message: GATEWAY_MESSAGES[status] ?? STATUS_CODES[status] })

/** A gateway answer through the request's response; `close` when the connection cannot go on. */
export const gatewayAnswer = (
  res: ServerResponse,
  status: number,
  close = false,
  headers: Record<string, string> = {},
) => {
  const body = gatewayBody(status)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'apigw-requestid': randomUUID(),
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(body)
}

/** A gateway answer written straight to the socket, for what never became a request, then closed. */
export const answerOnSocket = (socket: Duplex, status: number) => {
  if (socket.writable) {
    const body = gatewayBody(status)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\napigw-requestid: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** What Node's HTTP parser reports, as the gateway's status (everything else is 400). */
export const statusOfClientError = (code: string | undefined) => {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  if (code === 'HPE_HEADER_OVERFLOW') return 431
  return 400
}
