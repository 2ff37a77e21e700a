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
  GetGrant: wired(
    async () => (await import('../http/routes/get-grant.route')).makeGetGrantHandler,
    async () => (await import('./get-grant.deps')).getGrantDeps,
  ),
  GetProgramByKey: wired(
    async () => (await import('../http/routes/get-program.route')).makeGetProgramHandler,
    async () => (await import('./get-program.deps')).getProgramDeps,
  ),
  ListGrantsByKey: wired(
    async () => (await import('../http/routes/list-grants.route')).makeListGrantsHandler,
    async () => (await import('./list-grants.deps')).listGrantsDeps,
  ),
  CancelGrantByKey: wired(
    async () => (await import('../http/routes/cancel-grant.route')).makeCancelGrantHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  TestTransitionByKey: wired(
    async () => (await import('../http/routes/test-transition.route')).makeTestTransitionHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  RecipientBalanceByKey: wired(
    async () =>
      (await import('../http/routes/recipient-balance.route')).makeRecipientBalanceHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  RecipientOffer: wired(
    async () => (await import('../http/routes/recipient-offer.route')).makeRecipientOfferHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientIdentify: wired(
    async () =>
      (await import('../http/routes/recipient-identify.route')).makeRecipientIdentifyHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientAccept: wired(
    async () => (await import('../http/routes/recipient-accept.route')).makeRecipientAcceptHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientDecline: wired(
    async () =>
      (await import('../http/routes/recipient-decline.route')).makeRecipientDeclineHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientLinks: wired(
    async () => (await import('../http/routes/recipient-links.route')).makeRecipientLinksHandler,
    async () => (await import('./recipient-links.deps')).recipientLinksDeps,
  ),
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
  ListGrants: () =>
    import('../http/routes/manage/grants-list.route').then((m) => m.makeManageListGrantsHandler),
  SendGrant: () =>
    import('../http/routes/manage/grants-send.route').then((m) => m.makeSendGrantHandler),
  CreateGrantBatch: () =>
    import('../http/routes/manage/grant-batch-create.route').then(
      (m) => m.makeCreateGrantBatchHandler,
    ),
  CreateGrantBatchUpload: () =>
    import('../http/routes/manage/grant-batch-upload.route').then(
      (m) => m.makeCreateGrantBatchUploadHandler,
    ),
  GetGrantBatch: () =>
    import('../http/routes/manage/grant-batch-get.route').then((m) => m.makeGetGrantBatchHandler),
  ListGrantBatches: () =>
    import('../http/routes/manage/grant-batches-list.route').then(
      (m) => m.makeListGrantBatchesHandler,
    ),
  CancelGrantBatch: () =>
    import('../http/routes/manage/grant-batch-cancel.route').then(
      (m) => m.makeCancelGrantBatchHandler,
    ),
  ManageGetGrant: () =>
    import('../http/routes/manage/grant-get.route').then((m) => m.makeManageGetGrantHandler),
  ManageCancelGrant: () =>
    import('../http/routes/manage/grant-cancel.route').then((m) => m.makeManageCancelGrantHandler),
  ManageResendOffer: () =>
    import('../http/routes/manage/grant-resend.route').then((m) => m.makeManageResendOfferHandler),
  ManageCorrectEmail: () =>
    import('../http/routes/manage/grant-correct-email.route').then(
      (m) => m.makeManageCorrectEmailHandler,
    ),
  ProgramOfferSettings: () =>
    import('../http/routes/manage/program-offer-settings.route').then(
      (m) => m.makeProgramOfferSettingsHandler,
    ),
  ListInbox: () =>
    import('../http/routes/manage/inbox-list.route').then((m) => m.makeListInboxHandler),
  OfferPreview: () =>
    import('../http/routes/manage/offer-preview.route').then((m) => m.makeOfferPreviewHandler),
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
