import type { Runtime } from '../../composition'
import type { RouteId } from '../../routes'
import { makeCancelGrantHandler } from './cancel-grant.route'
import { makeGetGrantHandler } from './get-grant.route'
import { makeGetProgramHandler } from './get-program.route'
import { makeGrantTokensHandler } from './grant-tokens.route'
import { makeListGrantsHandler } from './list-grants.route'
import { makeListAuditHandler } from './manage/audit-list.route'
import { makeChangeMemberRoleHandler } from './manage/change-member-role.route'
import { makeCancelGrantBatchHandler } from './manage/grant-batch-cancel.route'
import { makeCreateGrantBatchHandler } from './manage/grant-batch-create.route'
import { makeGetGrantBatchHandler } from './manage/grant-batch-get.route'
import { makeCreateGrantBatchUploadHandler } from './manage/grant-batch-upload.route'
import { makeListGrantBatchesHandler } from './manage/grant-batches-list.route'
import { makeManageCancelGrantHandler } from './manage/grant-cancel.route'
import { makeManageCorrectEmailHandler } from './manage/grant-correct-email.route'
import { makeManageGetGrantHandler } from './manage/grant-get.route'
import { makeManageResendOfferHandler } from './manage/grant-resend.route'
import { makeManageListGrantsHandler } from './manage/grants-list.route'
import { makeSendGrantHandler } from './manage/grants-send.route'
import { makeListInboxHandler } from './manage/inbox-list.route'
import { makeInviteMemberHandler } from './manage/invite-member.route'
import { makeCreateKeyHandler } from './manage/key-create.route'
import { makeRevokeKeyHandler } from './manage/key-revoke.route'
import { makeRollKeyHandler } from './manage/key-roll.route'
import { makeListKeysHandler } from './manage/keys-list.route'
import { makeListMembersHandler } from './manage/list-members.route'
import { makeMeHandler } from './manage/me.route'
import { makeOfferPreviewHandler } from './manage/offer-preview.route'
import { makeCloseProgramHandler } from './manage/program-close.route'
import { makeCreateProgramHandler } from './manage/program-create.route'
import { makeGetProgramHandler as makeManageGetProgramHandler } from './manage/program-get.route'
import { makeProgramOfferSettingsHandler } from './manage/program-offer-settings.route'
import { makePauseProgramHandler } from './manage/program-pause.route'
import { makeResumeProgramHandler } from './manage/program-resume.route'
import { makeListProgramsHandler } from './manage/programs-list.route'
import { makeRemoveMemberHandler } from './manage/remove-member.route'
import { makeResendInvitationHandler } from './manage/resend-invitation.route'
import { makeCreateWebhookEndpointHandler } from './manage/webhook-endpoint-create.route'
import { makeDeleteWebhookEndpointHandler } from './manage/webhook-endpoint-delete.route'
import { makeGetWebhookEndpointHandler } from './manage/webhook-endpoint-get.route'
import { makeUpdateWebhookEndpointHandler } from './manage/webhook-endpoint-update.route'
import { makeListWebhookEndpointsHandler } from './manage/webhook-endpoints-list.route'
import { makeReplayWebhookMessageHandler } from './manage/webhook-message-replay.route'
import { makeListWebhookMessagesHandler } from './manage/webhook-messages-list.route'
import { makeReplayWebhookMessagesHandler } from './manage/webhook-messages-replay.route'
import { makeRotateWebhookSecretHandler } from './manage/webhook-secret-rotate.route'
import { makeSendTestWebhookHandler } from './manage/webhook-test-send.route'
import { makeNotFoundHandler } from './not-found.route'
import { makeRecipientAcceptHandler } from './recipient-accept.route'
import { makeRecipientBalanceHandler } from './recipient-balance.route'
import { makeRecipientDeclineHandler } from './recipient-decline.route'
import { makeRecipientIdentifyHandler } from './recipient-identify.route'
import { makeRecipientLinksHandler } from './recipient-links.route'
import { makeRecipientOfferHandler } from './recipient-offer.route'
import { makeTestTransitionHandler } from './test-transition.route'

/**
 * Each route's handler factory, by route id: what the local server (and the bench and the tests
 * through it) builds every route from, over a runtime of its own. Lambda never loads this list:
 * each function's entry (functions/handlers/*.handler.ts, routes.ts `entry`) imports its one
 * factory, so a function's bundle carries its own route only.
 */
export const ROUTE_FACTORIES = {
  GrantTokens: makeGrantTokensHandler,
  GetGrant: makeGetGrantHandler,
  GetProgramByKey: makeGetProgramHandler,
  ListGrantsByKey: makeListGrantsHandler,
  CancelGrantByKey: makeCancelGrantHandler,
  TestTransitionByKey: makeTestTransitionHandler,
  RecipientBalanceByKey: makeRecipientBalanceHandler,
  RecipientOffer: makeRecipientOfferHandler,
  RecipientIdentify: makeRecipientIdentifyHandler,
  RecipientAccept: makeRecipientAcceptHandler,
  RecipientDecline: makeRecipientDeclineHandler,
  RecipientLinks: makeRecipientLinksHandler,
  NotFound: makeNotFoundHandler,
  ManageMe: makeMeHandler,
  ListPrograms: makeListProgramsHandler,
  CreateProgram: makeCreateProgramHandler,
  GetProgram: makeManageGetProgramHandler,
  PauseProgram: makePauseProgramHandler,
  ResumeProgram: makeResumeProgramHandler,
  CloseProgram: makeCloseProgramHandler,
  ListKeys: makeListKeysHandler,
  CreateKey: makeCreateKeyHandler,
  RollKey: makeRollKeyHandler,
  RevokeKey: makeRevokeKeyHandler,
  ListAudit: makeListAuditHandler,
  ListMembers: makeListMembersHandler,
  InviteMember: makeInviteMemberHandler,
  ChangeMemberRole: makeChangeMemberRoleHandler,
  RemoveMember: makeRemoveMemberHandler,
  ResendInvitation: makeResendInvitationHandler,
  ListGrants: makeManageListGrantsHandler,
  SendGrant: makeSendGrantHandler,
  CreateGrantBatch: makeCreateGrantBatchHandler,
  CreateGrantBatchUpload: makeCreateGrantBatchUploadHandler,
  GetGrantBatch: makeGetGrantBatchHandler,
  ListGrantBatches: makeListGrantBatchesHandler,
  CancelGrantBatch: makeCancelGrantBatchHandler,
  ManageGetGrant: makeManageGetGrantHandler,
  ManageCancelGrant: makeManageCancelGrantHandler,
  ManageResendOffer: makeManageResendOfferHandler,
  ManageCorrectEmail: makeManageCorrectEmailHandler,
  ProgramOfferSettings: makeProgramOfferSettingsHandler,
  ListInbox: makeListInboxHandler,
  OfferPreview: makeOfferPreviewHandler,
  ListWebhookEndpoints: makeListWebhookEndpointsHandler,
  CreateWebhookEndpoint: makeCreateWebhookEndpointHandler,
  GetWebhookEndpoint: makeGetWebhookEndpointHandler,
  UpdateWebhookEndpoint: makeUpdateWebhookEndpointHandler,
  DeleteWebhookEndpoint: makeDeleteWebhookEndpointHandler,
  RotateWebhookSecret: makeRotateWebhookSecretHandler,
  SendTestWebhook: makeSendTestWebhookHandler,
  ListWebhookMessages: makeListWebhookMessagesHandler,
  ReplayWebhookMessage: makeReplayWebhookMessageHandler,
  ReplayWebhookMessages: makeReplayWebhookMessagesHandler,
} as const satisfies Record<RouteId, (runtime: Runtime) => unknown>
