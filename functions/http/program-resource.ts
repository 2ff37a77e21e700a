import type { ProgramRecord } from '../domain/program'
import { poolRemaining } from '../domain/program-shards'
import { type TokenValueFields, tokenValueFields } from './token-value'

/**
 * The public JSON shape of a program (`GET /programs/{programId}`). `pool` and `remaining` are
 * null for a program without a pool (unlimited). `tokensCount` and `active` are the names a client
 * written for the reference product reads: `tokensCount` is `issued` (the shares of reserved,
 * offered and accepted grants), `active` is `status === 'active'` (grants are accepted), and the
 * value of a share (`tokenValue`, `tokenValueCurrency`, `tokenValueCalculatedDate`: null while none
 * is set; token-value.ts).
 */
export type ProgramResource = {
  id: string
  object: 'program'
  mode: ProgramRecord['mode']
  name: string
  status: ProgramRecord['status']
  pool: number | null
  issued: number
  remaining: number | null
  tokensCount: number
  active: boolean
} & TokenValueFields

export const toProgramResource = (program: ProgramRecord): ProgramResource => ({
  id: program.programId,
  object: 'program',
  mode: program.mode,
  name: program.name,
  status: program.status,
  pool: program.pool ?? null,
  issued: program.issued ?? 0,
  remaining: poolRemaining(program.pool, program.issued),
  tokensCount: program.issued ?? 0,
  active: program.status === 'active',
  ...tokenValueFields(program.value),
})
