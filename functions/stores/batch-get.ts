/** BatchGetItem for the grant and grant-life stores: the kernel's (kernel/batch.ts), by its old path. */
export { type BatchGetRequest, batchGet, batchGetByKey } from './kernel/batch'
