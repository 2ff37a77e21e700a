import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { S3Client } from '@aws-sdk/client-s3'
import { presignPost } from './uploads.s3'
import { type PresignInput, UPLOAD_KEEP_DAYS, type UploadStore } from './uploads.store'

/**
 * The credentials `npm start` and the tests sign with, as for DynamoDB Local
 * (stores/dynamodb-client.ts): the receiver checks POST policies against the same secret.
 */
export const LOCAL_UPLOAD_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const
export const LOCAL_UPLOAD_REGION = 'local'
export const LOCAL_UPLOAD_BUCKET = 'local-uploads'
/** Where the local server receives uploads; the bucket follows in the path (path-style, as S3 takes it). */
export const LOCAL_UPLOAD_PATH = '/_local/uploads'

type Stored = { body: Buffer; contentType: string }

/**
 * The upload bucket under `npm start` (a folder beside DynamoDB Local's data) and in tests
 * (memory). Presigned with the same library as in AWS (`createPresignedPost`), over a client
 * pointed at the local server's receiver (local/upload-receiver.ts), which checks the policy as S3
 * does and `put`s the object here.
 */
export class LocalUploadStore implements UploadStore {
  private readonly memory = new Map<string, Stored>()
  private client: { endpoint: string; s3: S3Client } | undefined

  /**
   * `endpoint`: the local server's origin, read on each presign (a test's port is known only once
   * it listens). `dir`: keep objects in files there; absent, in memory.
   */
  constructor(private readonly options: { endpoint: () => string; dir?: string }) {
    if (options.dir) mkdirSync(options.dir, { recursive: true })
  }

  private s3() {
    const endpoint = `${this.options.endpoint()}${LOCAL_UPLOAD_PATH}`
    if (this.client?.endpoint !== endpoint) {
      this.client = {
        endpoint,
        s3: new S3Client({
          endpoint,
          forcePathStyle: true,
          region: LOCAL_UPLOAD_REGION,
          credentials: LOCAL_UPLOAD_CREDENTIALS,
        }),
      }
    }
    return this.client.s3
  }

  /** A file name no key can steer outside `dir`. */
  private file(key: string) {
    return join(this.options.dir as string, createHash('sha256').update(key).digest('hex'))
  }

  presign(input: PresignInput) {
    return presignPost(this.s3(), LOCAL_UPLOAD_BUCKET, input)
  }

  /** What the receiver stores once a POST passes its policy. */
  put(key: string, body: Buffer, contentType: string) {
    if (this.options.dir) writeFileSync(this.file(key), body)
    else this.memory.set(key, { body, contentType })
  }

  async read(key: string, maxBytes: number) {
    if (!this.options.dir) {
      const stored = this.memory.get(key)
      if (!stored) return undefined
      return stored.body.byteLength > maxBytes ? ('too-large' as const) : stored.body
    }
    const file = this.file(key)
    try {
      const stat = statSync(file)
      // Kept a day, as the bucket's lifecycle rule keeps them.
      if (stat.mtimeMs < Date.now() - UPLOAD_KEEP_DAYS * 86_400_000) return undefined
      if (stat.size > maxBytes) return 'too-large' as const
      return readFileSync(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }
}
