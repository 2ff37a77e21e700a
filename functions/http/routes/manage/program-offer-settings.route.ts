import { programView } from '../../../core/admin'
import { OFFER_SETTINGS_FIELDS } from '../../../domain/offer-settings'
import { bodyOfFields } from '../../body-shape'
import { adminBodyRoute, manageJson, programIdOf, programResource } from '../../manage-admin'

/**
 * The terms may be 20,000 characters of 4-byte UTF-8 and the description 2,000: the body's limit
 * is theirs, not the other management routes' 16 KB.
 */
export const OFFER_SETTINGS_BODY_MAX_BYTES = 128 * 1024

/** The body's shape; the values' rules are domain/offer-settings.ts's. */
export const OfferSettingsBody = bodyOfFields(...OFFER_SETTINGS_FIELDS)

/**
 * `PATCH /manage/issuers/{issuerId}/programs/{programId}/offer-settings` (admin)
 * `{ offerDays?, minAge?, countries?, description?, terms?: { text } | { url }, poolLowThreshold? }`:
 * what the program's recipients see and must meet, and when its `program.pool_low` webhook event
 * fires. `null` removes the age rule, the country rule, the description, the pool-low threshold. The offer window applies to grants made from now on. A change of the terms makes
 * their next version (recipients accept a version). Audited `program.offer_settings`. A wrong
 * value is `400 validation_failed` naming each field, and writes nothing.
 */
export const makeProgramOfferSettingsHandler = adminBodyRoute(
  'ProgramOfferSettings',
  OfferSettingsBody,
  async (request, admin, body) => {
    const program = await admin.setOfferSettings(programIdOf(request.event), body, {
      issuerId: request.membership?.issuerId,
    })
    return manageJson(200, programResource(programView(program)))
  },
  OFFER_SETTINGS_BODY_MAX_BYTES,
)
