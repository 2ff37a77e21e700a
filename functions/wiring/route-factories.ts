import type { Runtime } from '../composition'
import type { RouteId } from '../routes'

/**
 * A route over its deps: the route's module (http/routes/) and the builder of what it needs
 * (wiring/*.deps.ts), each loaded on the route's first request, composed over a runtime.
 */
const wired =
  <D, H>(route: () => Promise<(deps: D) => H>, deps: () => Promise<(runtime: Runtime) => D>) =>
  async () => {
    const [make, build] = await Promise.all([route(), deps()])
    return (runtime: Runtime) => make(build(runtime))
  }

/**
 * Each route's handler factory, by route id: what the local server (and the bench and the tests
 * through it) builds every route from, over a runtime of its own. Lambda never loads this list:
 * each function's entry (functions/handlers/*.handler.ts, routes.ts `entry`) imports its one
 * factory, so a function's bundle carries its own route only. Locally each factory is loaded on
 * its route's first request, as Lambda loads a function at its cold start: a process (a test file,
 * `npm start`) pays for the modules of the routes it calls, not of all of them.
 */
export const ROUTE_FACTORIES = {
  GrantTokens: wired(
    async () => (await import('../http/routes/grant-tokens.route')).makeGrantTokensHandler,
    async () => (await import('./grant-tokens.deps')).grantTokensDeps,
  ),
  GetGrant: () => import('../http/routes/get-grant.route').then((m) => m.makeGetGrantHandler),
  GetProgramByKey: () =>
    import('../http/routes/get-program.route').then((m) => m.makeGetProgramHandler),
  ListGrantsByKey: () =>
    import('../http/routes/list-grants.route').then((m) => m.makeListGrantsHandler),
  CancelGrantByKey: () =>
    import('../http/routes/cancel-grant.route').then((m) => m.makeCancelGrantHandler),
  TestTransitionByKey: () =>
    import('../http/routes/test-transition.route').then((m) => m.makeTestTransitionHandler),
  RecipientBalanceByKey: () =>
    import('../http/routes/recipient-balance.route').then((m) => m.makeRecipientBalanceHandler),
  RecipientOffer: () =>
    import('../http/routes/recipient-offer.route').then((m) => m.makeRecipientOfferHandler),
  RecipientIdentify: () =>
    import('../http/routes/recipient-identify.route').then((m) => m.makeRecipientIdentifyHandler),
  RecipientAccept: () =>
    import('../http/routes/recipient-accept.route').then((m) => m.makeRecipientAcceptHandler),
  RecipientDecline: () =>
    import('../http/routes/recipient-decline.route').then((m) => m.makeRecipientDeclineHandler),
  RecipientLinks: () =>
    import('../http/routes/recipient-links.route').then((m) => m.makeRecipientLinksHandler),
  NotFound: () => import('../http/routes/not-found.route').then((m) => m.makeNotFoundHandler),
  ManageMe: () => import('../http/routes/manage/me.route').then((m) => m.makeMeHandler),
  ListPrograms: () =>
    import('../http/routes/manage/programs-list.route').then((m) => m.makeListProgramsHandler),
  CreateProgram: () =>
    import('../http/routes/manage/program-create.route').then((m) => m.makeCreateProgramHandler),
  GetProgram: () =>
    import('../http/routes/manage/program-get.route').then((m) => m.makeGetProgramHandler),
  PauseProgram: () =>
    import('../http/routes/manage/program-pause.route').then((m) => m.makePauseProgramHandler),
  ResumeProgram: () =>
    import('../http/routes/manage/program-resume.route').then((m) => m.makeResumeProgramHandler),
  CloseProgram: () =>
    import('../http/routes/manage/program-close.route').then((m) => m.makeCloseProgramHandler),
  ListKeys: () =>
    import('../http/routes/manage/keys-list.route').then((m) => m.makeListKeysHandler),
  CreateKey: () =>
    import('../http/routes/manage/key-create.route').then((m) => m.makeCreateKeyHandler),
  RollKey: () => import('../http/routes/manage/key-roll.route').then((m) => m.makeRollKeyHandler),
  RevokeKey: () =>
    import('../http/routes/manage/key-revoke.route').then((m) => m.makeRevokeKeyHandler),
  ListAudit: () =>
    import('../http/routes/manage/audit-list.route').then((m) => m.makeListAuditHandler),
  ListMembers: () =>
    import('../http/routes/manage/list-members.route').then((m) => m.makeListMembersHandler),
  InviteMember: () =>
    import('../http/routes/manage/invite-member.route').then((m) => m.makeInviteMemberHandler),
  ChangeMemberRole: () =>
    import('../http/routes/manage/change-member-role.route').then(
      (m) => m.makeChangeMemberRoleHandler,
    ),
  RemoveMember: () =>
    import('../http/routes/manage/remove-member.route').then((m) => m.makeRemoveMemberHandler),
  ResendInvitation: () =>
    import('../http/routes/manage/resend-invitation.route').then(
      (m) => m.makeResendInvitationHandler,
    ),
  ListGrants: wired(
    async () =>
      (await import('../http/routes/manage/grants-list.route')).makeManageListGrantsHandler,
    async () => (await import('./manage-grants.deps')).manageListGrantsDeps,
  ),
  SendGrant: wired(
    async () => (await import('../http/routes/manage/grants-send.route')).makeSendGrantHandler,
    async () => (await import('./manage-grants.deps')).sendGrantDeps,
  ),
  CreateGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-create.route')).makeCreateGrantBatchHandler,
    async () => (await import('./batches.deps')).createGrantBatchDeps,
  ),
  CreateGrantBatchUpload: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-upload.route'))
        .makeCreateGrantBatchUploadHandler,
    async () => (await import('./batches.deps')).batchUploadDeps,
  ),
  GetGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-get.route')).makeGetGrantBatchHandler,
    async () => (await import('./batches.deps')).getGrantBatchDeps,
  ),
  ListGrantBatches: wired(
    async () =>
      (await import('../http/routes/manage/grant-batches-list.route')).makeListGrantBatchesHandler,
    async () => (await import('./batches.deps')).listGrantBatchesDeps,
  ),
  CancelGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-cancel.route')).makeCancelGrantBatchHandler,
    async () => (await import('./batches.deps')).cancelGrantBatchDeps,
  ),
  ManageGetGrant: wired(
    async () => (await import('../http/routes/manage/grant-get.route')).makeManageGetGrantHandler,
    async () => (await import('./manage-grants.deps')).manageGetGrantDeps,
  ),
  ManageCancelGrant: wired(
    async () =>
      (await import('../http/routes/manage/grant-cancel.route')).makeManageCancelGrantHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ManageResendOffer: wired(
    async () =>
      (await import('../http/routes/manage/grant-resend.route')).makeManageResendOfferHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ManageCorrectEmail: wired(
    async () =>
      (await import('../http/routes/manage/grant-correct-email.route'))
        .makeManageCorrectEmailHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ProgramOfferSettings: () =>
    import('../http/routes/manage/program-offer-settings.route').then(
      (m) => m.makeProgramOfferSettingsHandler,
    ),
  ListInbox: wired(
    async () => (await import('../http/routes/manage/inbox-list.route')).makeListInboxHandler,
    async () => (await import('./manage-mail.deps')).manageMailDeps,
  ),
  OfferPreview: wired(
    async () => (await import('../http/routes/manage/offer-preview.route')).makeOfferPreviewHandler,
    async () => (await import('./manage-mail.deps')).manageMailDeps,
  ),
  ListWebhookEndpoints: () =>
    import('../http/routes/manage/webhook-endpoints-list.route').then(
      (m) => m.makeListWebhookEndpointsHandler,
    ),
  CreateWebhookEndpoint: () =>
    import('../http/routes/manage/webhook-endpoint-create.route').then(
      (m) => m.makeCreateWebhookEndpointHandler,
    ),
  GetWebhookEndpoint: () =>
    import('../http/routes/manage/webhook-endpoint-get.route').then(
      (m) => m.makeGetWebhookEndpointHandler,
    ),
  UpdateWebhookEndpoint: () =>
    import('../http/routes/manage/webhook-endpoint-update.route').then(
      (m) => m.makeUpdateWebhookEndpointHandler,
    ),
  DeleteWebhookEndpoint: () =>
    import('../http/routes/manage/webhook-endpoint-delete.route').then(
      (m) => m.makeDeleteWebhookEndpointHandler,
    ),
  RotateWebhookSecret: () =>
    import('../http/routes/manage/webhook-secret-rotate.route').then(
      (m) => m.makeRotateWebhookSecretHandler,
    ),
  SendTestWebhook: () =>
    import('../http/routes/manage/webhook-test-send.route').then(
      (m) => m.makeSendTestWebhookHandler,
    ),
  ListWebhookMessages: () =>
    import('../http/routes/manage/webhook-messages-list.route').then(
      (m) => m.makeListWebhookMessagesHandler,
    ),
  ReplayWebhookMessage: () =>
    import('../http/routes/manage/webhook-message-replay.route').then(
      (m) => m.makeReplayWebhookMessageHandler,
    ),
  ReplayWebhookMessages: () =>
    import('../http/routes/manage/webhook-messages-replay.route').then(
      (m) => m.makeReplayWebhookMessagesHandler,
    ),
} as const

// Every route has a factory over a runtime (checked apart, so it does not steer `wired`'s inference).
ROUTE_FACTORIES satisfies Record<RouteId, () => Promise<(runtime: Runtime) => unknown>>
