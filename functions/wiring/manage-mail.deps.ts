import type { Runtime } from '../composition'
import type { ListInboxDeps } from '../http/routes/manage/inbox-list.route'
import type { OfferPreviewDeps } from '../http/routes/manage/offer-preview.route'
import { DynamoDbInboxStore } from '../stores/inbox.dynamodb'
import { DynamoDbOfferPreviewReader } from '../stores/offer-preview.dynamodb'
import { manageDeps } from './manage.deps'

/**
 * The management routes over the offer e-mail, one builder for both: ListInbox (the issuer's TEST
 * inbox) and OfferPreview (the program and issuer's name it renders, and where its link points).
 */
export const manageMailDeps = (runtime: Runtime): ListInboxDeps & OfferPreviewDeps => ({
  ...manageDeps(runtime),
  inbox: new DynamoDbInboxStore(runtime.documentClient, runtime.config.tables),
  previews: new DynamoDbOfferPreviewReader(runtime.documentClient, runtime.config.tables),
  recipientOrigin: runtime.config.mail.recipientOrigin,
  clock: () => runtime.clock.now(),
})
