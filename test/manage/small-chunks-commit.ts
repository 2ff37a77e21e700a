import type { Runtime } from '../../functions/composition'
import { GRANT_BATCH_ROWS_QUEUE } from '../../functions/consumers'
import { makeCreateGrantBatchHandler } from '../../functions/http/routes/manage/grant-batch-create.route'
import { createGrantBatchDeps } from '../../functions/wiring/batches.deps'
import type { LocalPipeline } from '../../local/pipeline'

/** The route key of CreateGrantBatch (the commit and the dry run). */
export const COMMIT_ROUTE = 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches'

/**
 * The commit route with `chunkRows` rows a chunk instead of the service's 100, sending to the
 * GrantBatchRows queue of the file's pipeline (`pipeline()`, read at the first commit, as the
 * route is built before the API that starts the pipeline): a batch of a few dozen rows then has
 * the several chunks, and SendMessageBatch calls, of one of a few hundred or thousand.
 */
export const smallChunksCommitRoute = (
  runtime: Runtime,
  chunkRows: number,
  pipeline: () => LocalPipeline | undefined,
) =>
  makeCreateGrantBatchHandler(
    createGrantBatchDeps(runtime, {
      chunkRows,
      queue: {
        sendBatch: (entries) => {
          const sender = pipeline()?.senders[GRANT_BATCH_ROWS_QUEUE.id]
          if (!sender) throw new Error('This file starts the API with its pipeline')
          return sender.sendBatch(entries)
        },
      },
    }),
  )
