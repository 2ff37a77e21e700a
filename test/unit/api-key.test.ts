import {
  generateApiKey,
  hashApiKey,
  keyPrefix,
  maskApiKey,
  parseApiKey,
} from '../../functions/domain/api-key'

describe('API key format', () => {
  it('carries its mode in a readable prefix and parses back to it', () => {
    const test = generateApiKey('TEST')
    const live = generateApiKey('LIVE')
    expect(test).toMatch(/^vs_test_[0-9A-Za-z]{30}$/)
    expect(live).toMatch(/^vs_live_[0-9A-Za-z]{30}$/)
    expect(parseApiKey(test)).toEqual({ mode: 'TEST' })
    expect(parseApiKey(live)).toEqual({ mode: 'LIVE' })
    expect(keyPrefix('LIVE')).toBe('vs_live_')
  })

  it('has at least 128 bits of randomness: 24 base62 characters, never repeating', () => {
    expect(24 * Math.log2(62)).toBeGreaterThanOrEqual(128)
    const keys = new Set(Array.from({ length: 2_000 }, () => generateApiKey('TEST')))
    expect(keys.size).toBe(2_000)
    // Every position of the random part takes many values (no constant or biased slots).
    const sample = [...keys]
    for (let i = 8; i < 32; i++) {
      expect(new Set(sample.map((k) => k[i])).size).toBeGreaterThan(40)
    }
  })

  it('rejects every single-character change, truncation and extension through the checksum', () => {
    const key = generateApiKey('LIVE')
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
    for (let i = 8; i < key.length; i++) {
      for (const c of alphabet) {
        if (c === key[i]) continue
        const altered = key.slice(0, i) + c + key.slice(i + 1)
        expect(parseApiKey(altered)).toBeUndefined()
      }
    }
    expect(parseApiKey(key.slice(0, -1))).toBeUndefined()
    expect(parseApiKey(`${key}0`)).toBeUndefined()
    // A LIVE key relabelled as TEST fails its checksum: the prefix is covered.
    expect(parseApiKey(key.replace('vs_live_', 'vs_test_'))).toBeUndefined()
  })

  it.each([
    '',
    'vs_test_',
    'sk_test_abc',
    'VS_TEST_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ' vs_test_x',
    'a'.repeat(5000),
  ])('rejects %j as malformed', (candidate) => {
    expect(parseApiKey(candidate)).toBeUndefined()
  })

  it('hashes with SHA-256 and masks to prefix and last four', () => {
    const key = generateApiKey('TEST')
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashApiKey(key)).toBe(hashApiKey(key))
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey('TEST')))
    expect(maskApiKey(key)).toEqual({ prefix: 'vs_test_', last4: key.slice(-4) })
  })
})
