import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import { BATCH_LIMITS } from '../../../domain/batch'
import type { GrantStore } from '../../../stores/grants.store'
import {
  newUploadId,
  UPLOAD_CONTENT_TYPE,
  UPLOAD_EXPIRES_SECONDS,
  type UploadStore,
  uploadKey,
} from '../../../stores/uploads.store'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { NO_STORE, programOfIssuer } from '../../program-of-issuer'

/**
 * What the routes over uploads need (wiring/batches.deps.ts): whose the program is, and the
 * upload store, built on its first use (a route that never reads an upload needs no bucket).
 */
export type BatchUploadDeps = ManageDeps & {
  readonly grants: Pick<GrantStore, 'findProgram'>
  readonly uploads: () => UploadStore
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grant-batch-uploads` (admin): where to
 * upload a CSV too large for the JSON body (up to BATCH_LIMITS.maxUploadBytes), straight to the
 * upload bucket: a presigned POST (S3's browser-based upload) for one new key under this issuer and
 * program, `text/csv`, 1 byte to maxUploadBytes, valid 15 minutes. The browser sends the form
 * (`fields` first, the file last, as `file`) to `url`; S3 answers 204. Then
 * `POST .../grant-batches` with `{ "upload": uploadId, ... }` dry-runs or commits it. Nothing is
 * written here: an id that was never used is simply never found.
 */
export const makeCreateGrantBatchUploadHandler = ({ grants, uploads, ...deps }: BatchUploadDeps) =>
  manageHandler('CreateGrantBatchUpload', deps, async ({ event, deadline, membership }) => {
    if (!membership) throw new Error('CreateGrantBatchUpload needs the member who uploads')
    // The program must be this issuer's (404 otherwise), so no key is signed for another's.
    const program = await programOfIssuer(
      grants,
      membership.issuerId,
      (event as APIGatewayProxyEventV2WithJWTAuthorizer).pathParameters?.programId,
      { signal: deadline.signal },
    )
    const uploadId = newUploadId()
    const maxBytes = BATCH_LIMITS.maxUploadBytes
    const { url, fields, expiresAt } = await uploads().presign({
      key: uploadKey(membership.issuerId, program.programId, uploadId),
      maxBytes,
      contentType: UPLOAD_CONTENT_TYPE,
      expiresInSeconds: UPLOAD_EXPIRES_SECONDS,
    })
    return json(
      201,
      { object: 'grant_batch_upload', uploadId, url, fields, expiresAt, maxBytes },
      NO_STORE,
    )
  })
