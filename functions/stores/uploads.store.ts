import { randomBytes } from 'node:crypto'
import { base32 } from '../domain/ids'

/** `signal` aborts the call (a request's deadline). */
export type UploadCallOptions = { signal?: AbortSignal | undefined }

/**
 * A presigned POST (S3's browser-based upload): the form fields to send before the file, to `url`.
 * The policy inside the fields fixes the key, the Content-Type, the size range and the expiry: the
 * store checks them, not our code.
 */
export type PresignedUpload = {
  url: string
  fields: Record<string, string>
  /** When the policy expires (ISO 8601, whole seconds): the POST is refused after it. */
  expiresAt: string
}

export type PresignInput = {
  key: string
  /** `content-length-range` 1..maxBytes. */
  maxBytes: number
  contentType: string
  expiresInSeconds: number
}

/**
 * Where send-to-many CSVs are uploaded: the upload bucket in AWS (uploads.s3.ts), a folder or
 * memory under `npm start` and in tests (uploads.local.ts, behind local/upload-receiver.ts). Stores
 * report what is there; the route decides what it means.
 */
export interface UploadStore {
  /** A POST policy for exactly one key. */
  presign(input: PresignInput): Promise<PresignedUpload>
  /**
   * The object's bytes, or `undefined` when there is none at `key` (never uploaded, or expired
   * by the bucket's lifecycle rule). `too-large`: over `maxBytes` (the policy caps it, but the
   * reader never trusts that alone).
   */
  read(
    key: string,
    maxBytes: number,
    options?: UploadCallOptions,
  ): Promise<Buffer | 'too-large' | undefined>
}

/** Uploads live under this prefix: the bucket's lifecycle rule and the routes' IAM name it. */
export const UPLOAD_PREFIX = 'uploads/'

/** An upload's id: random, 130 bits, so no one finds another's upload by guessing. */
export const UPLOAD_ID = /^upl_[0-9a-hjkmnp-tv-z]{26}$/
export const newUploadId = () => `upl_${base32(randomBytes(17), 26)}`

/**
 * The one key an upload may have: under its issuer and program, so an upload id is only ever read
 * back for the program it was made for.
 */
export const uploadKey = (issuerId: string, programId: string, uploadId: string) =>
  `${UPLOAD_PREFIX}${issuerId}/${programId}/${uploadId}.csv`

/** The uploaded CSV's Content-Type, fixed by the policy. */
export const UPLOAD_CONTENT_TYPE = 'text/csv'

/** How long a presigned POST may be used: long enough for 32 MiB on a slow line. */
export const UPLOAD_EXPIRES_SECONDS = 15 * 60

/** Days an uploaded CSV is kept (the bucket's lifecycle rule; the local store reads the same). */
export const UPLOAD_KEEP_DAYS = 1
