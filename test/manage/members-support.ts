import { randomUUID } from 'node:crypto'
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb'
import { newId } from '../../functions/domain/ids'
import type { AuditEntry, MembershipRecord } from '../../functions/domain/people'
import type { IdentityProvider } from '../../functions/identity/identity-provider'
import type { Mailer, OutgoingMail } from '../../functions/mail/mailer'
import { config, documentClient } from '../support/runtime'

/**
 * Helpers of the member tests: issuers written straight to the table (so they do not depend on
 * the admin use cases), reads of the memberships and the audit log, strongly consistent, and a
 * fake identity provider that records every call.
 */

export const tables = config.tables

export const createIssuer = async (name = 'Members test issuer') => {
  const issuerId = newId('issuer')
  await documentClient.send(
    new PutCommand({
      TableName: tables.issuers,
      Item: { issuerId, name, createdAt: new Date().toISOString() },
    }),
  )
  return issuerId
}

export const membershipsOf = async (issuerId: string) =>
  ((
    await documentClient.send(
      new QueryCommand({
        TableName: tables.memberships,
        KeyConditionExpression: 'issuerId = :i',
        ExpressionAttributeValues: { ':i': issuerId },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as MembershipRecord[]

export const auditOf = async (issuerId: string) =>
  ((
    await documentClient.send(
      new QueryCommand({
        TableName: tables.audit,
        KeyConditionExpression: 'issuerId = :i',
        ExpressionAttributeValues: { ':i': issuerId },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as AuditEntry[]

/** Everything the issuer's memberships and audit log hold, to compare before and after. */
export const issuerState = async (issuerId: string) => {
  const [memberships, audit] = await Promise.all([membershipsOf(issuerId), auditOf(issuerId)])
  return {
    memberships: memberships.sort((a, b) => a.sub.localeCompare(b.sub)),
    audit: audit.sort((a, b) => a.entryId.localeCompare(b.entryId)),
  }
}

/**
 * Every item of every table, as text: to look for something that must never be stored. The tables
 * are the run's, grown by every file before this one: scanned side by side.
 */
export const everythingStored = async () => {
  const scanTable = async (table: string) => {
    const texts: string[] = []
    let start: Record<string, unknown> | undefined
    do {
      const page = await documentClient.send(
        new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }),
      )
      texts.push(JSON.stringify(page.Items ?? []))
      start = page.LastEvaluatedKey
    } while (start)
    return texts.join('\n')
  }
  return (await Promise.all(Object.values(tables).map(scanTable))).join('\n')
}

export type IdentityCall =
  | { op: 'invite'; email: string; issuerName: string; created: boolean }
  | { op: 'resendInvitation'; email: string; issuerName: string; otherIssuerNames: string[] }
  | { op: 'status'; email: string }

/** An identity provider in memory: accounts by address, each `invited` until `signIn`. */
export const fakeIdentity = () => {
  const accounts = new Map<string, { sub: string; status: 'invited' | 'active' }>()
  const calls: IdentityCall[] = []
  const provider: IdentityProvider = {
    async invite({ email, issuerName }) {
      const existing = accounts.get(email)
      calls.push({ op: 'invite', email, issuerName, created: !existing })
      if (existing) return { sub: existing.sub, created: false, status: existing.status }
      const sub = randomUUID()
      accounts.set(email, { sub, status: 'invited' })
      return { sub, created: true, status: 'invited' as const }
    },
    async resendInvitation({ email, issuerName, otherIssuerNames }) {
      calls.push({
        op: 'resendInvitation',
        email,
        issuerName,
        otherIssuerNames: [...(otherIssuerNames ?? [])],
      })
      const account = accounts.get(email)
      if (!account) throw new Error(`no account ${email}`)
      if (account.status === 'active') {
        throw Object.assign(new Error('already active'), {
          name: 'IdentityRefusal',
          reason: 'active',
        })
      }
    },
    async status(email) {
      calls.push({ op: 'status', email })
      return accounts.get(email)?.status ?? 'unknown'
    },
  }
  return {
    provider,
    calls,
    accounts,
    /** An account that exists already and has a password of its own. */
    existing(email: string) {
      const sub = randomUUID()
      accounts.set(email, { sub, status: 'active' })
      return sub
    },
    signIn(email: string) {
      const account = accounts.get(email)
      if (account) account.status = 'active'
    },
  }
}

/** A mailer in memory that keeps every message (or, `noSender`, sends none, as with no SES). */
export const memoryMailer = (options: { noSender?: boolean } = {}) => {
  const sent: OutgoingMail[] = []
  const mailer: Mailer = {
    async send(mail) {
      if (options.noSender) return 'no_sender'
      sent.push(mail)
      return 'sent'
    },
  }
  return { mailer, sent, mail: () => ({ mailer, consoleUrl: 'https://console.example.com/' }) }
}
