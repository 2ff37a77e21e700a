import type { Runtime } from '../../composition'
import type { RouteId } from '../../routes'

/**
 * Each route's handler factory, by route id: what the local server (and the bench and the tests
 * through it) builds every route from, over a runtime of its own. Lambda never loads this list:
 * each function's entry (functions/handlers/*.handler.ts, routes.ts `entry`) imports its one
 * factory, so a function's bundle carries its own route only. Locally each factory is loaded on
 * its route's first request, as Lambda loads a function at its cold start: a process (a test file,
 * `npm start`) pays for the modules of the routes it calls, not of all of them.
 */
export const ROUTE_FACTORIES = {
  GrantTokens: () => import('./grant-tokens.route').then((m) => m.makeGrantTokensHandler),
  GetGrant: () => import('./get-grant.route').then((m) => m.makeGetGrantHandler),
  GetProgramByKey: () => import('./get-program.route').then((m) => m.makeGetProgramHandler),
  ListGrantsByKey: () => import('./list-grants.route').then((m) => m.makeListGrantsHandler),
  CancelGrantByKey: () => import('./cancel-grant.route').then((m) => m.makeCancelGrantHandler),
  TestTransitionByKey: () =>
    import('./test-transition.route').then((m) => m.makeTestTransitionHandler),
  RecipientBalanceByKey: () =>
    import('./recipient-balance.route').then((m) => m.makeRecipientBalanceHandler),
  RecipientOffer: () => import('./recipient-offer.route').then((m) => m.makeRecipientOfferHandler),
  RecipientIdentify: () =>
    import('./recipient-identify.route').then((m) => m.makeRecipientIdentifyHandler),
  RecipientAccept: () =>
    import('./recipient-accept.route').then((m) => m.makeRecipientAcceptHandler),
  RecipientDecline: () =>
    import('./recipient-decline.route').then((m) => m.makeRecipientDeclineHandler),
  RecipientLinks: () => import('./recipient-links.route').then((m) => m.makeRecipientLinksHandler),
  NotFound: () => import('./not-found.route').then((m) => m.makeNotFoundHandler),
  ManageMe: () => import('./manage/me.route').then((m) => m.makeMeHandler),
  ListPrograms: () => import('./manage/programs-list.route').then((m) => m.makeListProgramsHandler),
  CreateProgram: () =>
    import('./manage/program-create.route').then((m) => m.makeCreateProgramHandler),
  GetProgram: () => import('./manage/program-get.route').then((m) => m.makeGetProgramHandler),
  PauseProgram: () => import('./manage/program-pause.route').then((m) => m.makePauseProgramHandler),
  ResumeProgram: () =>
    import('./manage/program-resume.route').then((m) => m.makeResumeProgramHandler),
  CloseProgram: () => import('./manage/program-close.route').then((m) => m.makeCloseProgramHandler),
  ListKeys: () => import('./manage/keys-list.route').then((m) => m.makeListKeysHandler),
  CreateKey: () => import('./manage/key-create.route').then((m) => m.makeCreateKeyHandler),
  RollKey: () => import('./manage/key-roll.route').then((m) => m.makeRollKeyHandler),
  RevokeKey: () => import('./manage/key-revoke.route').then((m) => m.makeRevokeKeyHandler),
  ListAudit: () => import('./manage/audit-list.route').then((m) => m.makeListAuditHandler),
  ListMembers: () => import('./manage/list-members.route').then((m) => m.makeListMembersHandler),
  InviteMember: () => import('./manage/invite-member.route').then((m) => m.makeInviteMemberHandler),
  ChangeMemberRole: () =>
    import('./manage/change-member-role.route').then((m) => m.makeChangeMemberRoleHandler),
  RemoveMember: () => import('./manage/remove-member.route').then((m) => m.makeRemoveMemberHandler),
  ResendInvitation: () =>
    import('./manage/resend-invitation.route').then((m) => m.makeResendInvitationHandler),
  ListGrants: () => import('./manage/grants-list.route').then((m) => m.makeManageListGrantsHandler),
  SendGrant: () => import('./manage/grants-send.route').then((m) => m.makeSendGrantHandler),
  CreateGrantBatch: () =>
    import('./manage/grant-batch-create.route').then((m) => m.makeCreateGrantBatchHandler),
  CreateGrantBatchUpload: () =>
    import('./manage/grant-batch-upload.route').then((m) => m.makeCreateGrantBatchUploadHandler),
  GetGrantBatch: () =>
    import('./manage/grant-batch-get.route').then((m) => m.makeGetGrantBatchHandler),
  ListGrantBatches: () =>
    import('./manage/grant-batches-list.route').then((m) => m.makeListGrantBatchesHandler),
  CancelGrantBatch: () =>
    import('./manage/grant-batch-cancel.route').then((m) => m.makeCancelGrantBatchHandler),
  ManageGetGrant: () => import('./manage/grant-get.route').then((m) => m.makeManageGetGrantHandler),
  ManageCancelGrant: () =>
    import('./manage/grant-cancel.route').then((m) => m.makeManageCancelGrantHandler),
  ManageResendOffer: () =>
    import('./manage/grant-resend.route').then((m) => m.makeManageResendOfferHandler),
  ManageCorrectEmail: () =>
    import('./manage/grant-correct-email.route').then((m) => m.makeManageCorrectEmailHandler),
  ProgramOfferSettings: () =>
    import('./manage/program-offer-settings.route').then((m) => m.makeProgramOfferSettingsHandler),
  ListInbox: () => import('./manage/inbox-list.route').then((m) => m.makeListInboxHandler),
  OfferPreview: () => import('./manage/offer-preview.route').then((m) => m.makeOfferPreviewHandler),
  ListWebhookEndpoints: () =>
    import('./manage/webhook-endpoints-list.route').then((m) => m.makeListWebhookEndpointsHandler),
  CreateWebhookEndpoint: () =>
    import('./manage/webhook-endpoint-create.route').then(
      (m) => m.makeCreateWebhookEndpointHandler,
    ),
  GetWebhookEndpoint: () =>
    import('./manage/webhook-endpoint-get.route').then((m) => m.makeGetWebhookEndpointHandler),
  UpdateWebhookEndpoint: () =>
    import('./manage/webhook-endpoint-update.route').then(
      (m) => m.makeUpdateWebhookEndpointHandler,
    ),
  DeleteWebhookEndpoint: () =>
    import('./manage/webhook-endpoint-delete.route').then(
      (m) => m.makeDeleteWebhookEndpointHandler,
    ),
  RotateWebhookSecret: () =>
    import('./manage/webhook-secret-rotate.route').then((m) => m.makeRotateWebhookSecretHandler),
  SendTestWebhook: () =>
    import('./manage/webhook-test-send.route').then((m) => m.makeSendTestWebhookHandler),
  ListWebhookMessages: () =>
    import('./manage/webhook-messages-list.route').then((m) => m.makeListWebhookMessagesHandler),
  ReplayWebhookMessage: () =>
    import('./manage/webhook-message-replay.route').then((m) => m.makeReplayWebhookMessageHandler),
  ReplayWebhookMessages: () =>
    import('./manage/webhook-messages-replay.route').then(
      (m) => m.makeReplayWebhookMessagesHandler,
    ),
} as const satisfies Record<RouteId, () => Promise<(runtime: Runtime) => unknown>>
