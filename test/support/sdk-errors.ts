import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'

/** What the SDK puts on an error DynamoDB answered with a 400. */
export const meta = { $metadata: { httpStatusCode: 400 } }

/** A cancelled transaction, as the SDK builds it: one reason per item, by its code. */
export const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    ...meta,
    CancellationReasons: codes.map((Code) => ({ Code })),
  })
