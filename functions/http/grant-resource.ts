import type { GrantRecord } from '../domain/grant'

/**
 * The public JSON shape of a grant's request and state; grant-life-resource.ts adds its life (the
 * offer window, delivery, history). Creation, replay and GET answer the same GrantDetail.
 */
export type GrantResource = {
  id: string
  object: 'grant'
  programId: string
  mode: GrantRecord['mode']
  recipient: { email: string; name?: string }
  reason: string
  amount: number
  status: GrantRecord['status']
  createdAt: string
}

export const toGrantResource = (record: GrantRecord): GrantResource => ({
  id: record.grantId,
  object: 'grant',
  programId: record.programId,
  mode: record.mode,
  recipient:
    record.recipient.name === undefined
      ? { email: record.recipient.email }
      : { email: record.recipient.email, name: record.recipient.name },
  reason: record.reason,
  amount: record.amount,
  status: record.status,
  createdAt: record.createdAt,
})

export const grantLocation = (record: Pick<GrantRecord, 'programId' | 'grantId'>) =>
  `/programs/${record.programId}/grants/${record.grantId}`
