import { GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { createPresignedPost } from '@aws-sdk/s3-presigned-post'
import type { PresignedUpload, PresignInput, UploadCallOptions, UploadStore } from './uploads.store'

/**
 * A POST policy signed by `client`'s credentials (SigV4, the service `s3`): exactly one key, the
 * Content-Type, a size from 1 byte to `maxBytes` (`content-length-range`), and an expiry. The
 * bucket refuses any POST that breaks it. Shared by the S3 store and the local one, which presigns
 * for the local server's receiver with the same library.
 */
export const presignPost = async (
  client: S3Client,
  bucket: string,
  input: PresignInput,
): Promise<PresignedUpload> => {
  const { url, fields } = await createPresignedPost(client, {
    Bucket: bucket,
    Key: input.key,
    Conditions: [['content-length-range', 1, input.maxBytes]],
    Fields: { 'Content-Type': input.contentType },
    Expires: input.expiresInSeconds,
  })
  // The policy's own expiration (the library dates it by its clock): what the bucket enforces.
  const policy = JSON.parse(Buffer.from(fields.Policy as string, 'base64').toString('utf8')) as {
    expiration: string
  }
  return { url, fields, expiresAt: policy.expiration }
}

/** The upload bucket (UPLOAD_BUCKET): the stack gives the routes exactly the actions they use. */
export class S3UploadStore implements UploadStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  presign(input: PresignInput) {
    return presignPost(this.client, this.bucket, input)
  }

  async read(key: string, maxBytes: number, options: UploadCallOptions = {}) {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key }),
        options.signal ? { abortSignal: options.signal } : {},
      )
      if ((object.ContentLength ?? 0) > maxBytes) {
        object.Body?.transformToWebStream().cancel()
        return 'too-large' as const
      }
      const bytes = await object.Body?.transformToByteArray()
      if (bytes === undefined) return undefined
      return bytes.byteLength > maxBytes ? ('too-large' as const) : Buffer.from(bytes)
    } catch (error) {
      // Without s3:ListBucket a missing key is AccessDenied (403), not NoSuchKey: the routes have
      // no ListBucket, and an upload they may not read is, to them, no upload.
      if (
        error instanceof NoSuchKey ||
        (error instanceof S3ServiceException &&
          (error.$metadata.httpStatusCode === 404 || error.name === 'AccessDenied'))
      ) {
        return undefined
      }
      throw error
    }
  }
}

/** The store of a Lambda function: the bucket the stack names, in the function's region. */
export const s3UploadStore = (bucket: string, region: string | undefined) =>
  new S3UploadStore(new S3Client(region ? { region } : {}), bucket)

/**
 * The upload store of a runtime, made on first use: npm start's and the tests' local one, else
 * the bucket UPLOAD_BUCKET names (a function the stack gave no bucket fails loudly here).
 */
export const lazyUploadStore = (runtime: {
  uploads?: UploadStore | undefined
  config: { uploadBucket?: string | undefined; awsRegion?: string | undefined }
}) => {
  let store: UploadStore | undefined = runtime.uploads
  return (): UploadStore => {
    if (store) return store
    const bucket = runtime.config.uploadBucket
    if (bucket === undefined) {
      throw new Error(
        'No upload store: the stack sets UPLOAD_BUCKET on the routes that use uploads; npm start and tests pass a local store (Runtime.uploads).',
      )
    }
    store = s3UploadStore(bucket, runtime.config.awsRegion)
    return store
  }
}
