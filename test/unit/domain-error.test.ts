import * as errors from '../../functions/domain/errors'
import { asGiven, DomainError, domainError } from '../../functions/domain/errors'

/** functions/domain/errors.ts domainError: the classes of the error catalogue. */
describe('domainError', () => {
  const Made = domainError('grant_not_found', 'Grant not found', (id: string, where: string) => {
    return `No grant ${id} in ${where}.`
  })

  it('makes a DomainError with its code, title and the detail of its arguments', () => {
    const error = new Made('gr_1', 'this program')
    expect(error).toBeInstanceOf(DomainError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(Made)
    expect(error).toMatchObject({
      code: 'grant_not_found',
      title: 'Grant not found',
      detail: 'No grant gr_1 in this program.',
      message: 'No grant gr_1 in this program.',
      name: 'GrantNotFound',
    })
    expect(error.cause).toBeUndefined()
  })

  it('takes the cause after the detail arguments', () => {
    const cause = new Error('throttled')
    expect(new Made('gr_1', 'x', { cause }).cause).toBe(cause)
    const Worded = domainError('key_state_conflict', 'Key state', asGiven)
    const error = new Worded('Only an active key can be rolled.', { cause })
    expect(error).toMatchObject({ detail: 'Only an active key can be rolled.', cause })
  })

  it('keeps each class apart, and a given name', () => {
    expect(new errors.ProgramNotFound('p')).not.toBeInstanceOf(errors.IssuerProgramNotFound)
    expect(new errors.IssuerProgramNotFound('p').name).toBe('IssuerProgramNotFound')
    expect(new errors.KeyNotFound('k').name).toBe('KeyNotFound')
    expect(new errors.RequestConflict().name).toBe('RequestConflict')
    expect(new errors.RequestConflict().retryAfterSeconds).toBe(1)
  })
})
