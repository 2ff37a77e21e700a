import { LOCAL_UPLOAD_BUCKET, LocalUploadStore } from '../../functions/stores/uploads.local'
import { checkUploadForm, S3Refusal } from '../../local/upload-form'

/** A presigned POST form (the local store's, as npm start signs it) as bytes and content type. */
const signedForm = async (file: string, change: Record<string, string> = {}) => {
  const store = new LocalUploadStore({ endpoint: () => 'http://127.0.0.1:3000' })
  const upload = await store.presign({
    key: 'uploads/a.csv',
    maxBytes: 16,
    contentType: 'text/csv',
    expiresInSeconds: 300,
  })
  const form = new FormData()
  for (const [name, value] of Object.entries({ ...upload.fields, ...change })) {
    form.append(name, value)
  }
  form.append('file', new Blob([file], { type: 'text/csv' }))
  const request = new Response(form)
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? undefined,
  }
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(S3Refusal)
  const { status, code, message } = error as S3Refusal
  return { status, code, message }
}

describe('checkUploadForm (the S3 POST form the local receiver takes)', () => {
  const now = () => Date.parse('2000-01-01T00:00:00Z')

  it('takes a form signed by the local store and gives the object to store', async () => {
    const { body, contentType } = await signedForm('a,b\r\n')
    const object = await checkUploadForm(LOCAL_UPLOAD_BUCKET, contentType, body, now)
    expect(object).toEqual({
      key: 'uploads/a.csv',
      file: Buffer.from('a,b\r\n'),
      contentType: 'text/csv',
    })
  })

  it('refuses a body that is not multipart/form-data', async () => {
    await expect(
      refusal(checkUploadForm(LOCAL_UPLOAD_BUCKET, 'text/plain', Buffer.from('x'), now)),
    ).resolves.toMatchObject({ status: 412, code: 'PreconditionFailed' })
  })

  it('refuses a field the policy does not allow, an expired policy and a file too large', async () => {
    const moved = await signedForm('a', { key: 'elsewhere.csv' })
    await expect(
      refusal(checkUploadForm(LOCAL_UPLOAD_BUCKET, moved.contentType, moved.body, now)),
    ).resolves.toMatchObject({ status: 403, code: 'AccessDenied' })

    const late = await signedForm('a')
    const later = () => Date.parse('2999-01-01T00:00:00Z')
    await expect(
      refusal(checkUploadForm(LOCAL_UPLOAD_BUCKET, late.contentType, late.body, later)),
    ).resolves.toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy expired.',
    })

    const large = await signedForm('x'.repeat(17))
    await expect(
      refusal(checkUploadForm(LOCAL_UPLOAD_BUCKET, large.contentType, large.body, now)),
    ).resolves.toMatchObject({ status: 400, code: 'EntityTooLarge' })
  })
})
