/**
 * The layers of functions/, checked by `npm run check:layers` (in .ci/run): imports point down,
 * handlers -> http -> core -> domain, core -> store interfaces, SDK clients only in adapters.
 * docs/architecture.md ("Layers the build checks") quotes these rules. Violations that were there
 * before a rule are listed in .dependency-cruiser-known-violations.json and tolerated; any other
 * fails the check. Regenerate that list when a violation is removed (`npm run check:layers:baseline`).
 */

/** Read by the stack, the local server and every layer: they import only each other and domain. */
const DECLARATIONS =
  '^functions/(config|env-names|table-schema|consumers|routes|function-timeout)[.]ts$|^functions/routes/'
/** Where an AWS SDK client is imported: one adapter folder per kind of service, and where clients are built. */
const SDK_ALLOWED = '^functions/(stores|runtime|identity|mail|wiring)/|^functions/composition[.]ts$'
/** The stores as a use case sees them: their interfaces and the one error they throw. */
const STORE_INTERFACES = '[.]store[.]ts$|^functions/stores/store-errors[.]ts$'
/** What builds the runtime and the use cases for an entry point: nothing below may import it. */
const ENTRY = '^functions/(handlers|wiring)/|^functions/composition[.]ts$'

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, at any length.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-only-domain',
      comment: 'domain/ is records and pure rules: it imports domain/, zod and node:crypto only.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { pathNot: ['^functions/domain/', 'node_modules/zod/', '^(node:)?crypto$'] },
    },
    {
      name: 'declarations-import-only-declarations',
      comment: 'config, env-names, table-schema, routes, consumers: no store, use case or adapter.',
      severity: 'error',
      from: { path: DECLARATIONS },
      to: { path: '^functions/', pathNot: [DECLARATIONS, '^functions/domain/'] },
    },
    {
      name: 'adapters-import-no-use-case',
      comment: 'stores/, runtime/, identity/, mail/ sit under core/: no use case, route or entry.',
      severity: 'error',
      from: { path: '^functions/(stores|runtime|identity|mail)/' },
      to: { path: `^functions/(core|http)/|${ENTRY}` },
    },
    {
      name: 'runtime-imports-no-store',
      comment: 'runtime/ (clock, deadline, retry, queue sender, secret box) is under stores/.',
      severity: 'error',
      from: { path: '^functions/runtime/' },
      to: { path: '^functions/stores/' },
    },
    {
      name: 'core-imports-store-interfaces-only',
      comment: 'core/ sees stores through their interfaces (*.store.ts, store-errors.ts), never an implementation.',
      severity: 'error',
      from: { path: '^functions/core/' },
      to: { path: '^functions/stores/', pathNot: STORE_INTERFACES },
    },
    {
      name: 'core-imports-no-entry',
      comment:
        'core/ does not know HTTP or how it is wired: no http/, handlers/, wiring/, composition.',
      severity: 'error',
      from: { path: '^functions/core/' },
      to: { path: `^functions/http/|${ENTRY}` },
    },
    {
      name: 'http-imports-store-interfaces-only',
      comment: 'http/ calls use cases; it builds no store (the composition root does).',
      severity: 'error',
      from: { path: '^functions/http/' },
      to: { path: '^functions/stores/', pathNot: STORE_INTERFACES },
    },
    {
      name: 'http-imports-no-handler',
      comment: 'http/ is under handlers/: a route factory never imports a Lambda entry module.',
      severity: 'error',
      from: { path: '^functions/http/' },
      to: { path: '^functions/(handlers|wiring)/' },
    },
    {
      name: 'handlers-import-http-and-wiring',
      comment:
        'A Lambda entry module hands its runtime to http/ or wiring/, not to core/ or stores/.',
      severity: 'error',
      from: { path: '^functions/handlers/' },
      to: { path: '^functions/(core|stores|domain|mail)/' },
    },
    {
      name: 'aws-sdk-only-in-adapters',
      comment:
        'SDK commands and clients only in stores/, runtime/, identity/, mail/ and the composition.',
      severity: 'error',
      from: { path: '^functions/', pathNot: SDK_ALLOWED },
      to: { path: 'node_modules/@aws-sdk/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` counts: a use case that names a concrete store's type depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // node_modules is a symlink in a git worktree: keep the path as written, so the known
    // violations read the same in every checkout.
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
