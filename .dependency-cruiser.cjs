/**
 * The layers of functions/, checked by `npm run check:layers` (in .ci/run): imports point down,
 * handlers -> http -> core -> domain, core -> store interfaces, SDK clients only in adapters.
 * docs/architecture.md ("Layers the build checks") quotes these rules. Violations that were there
 * before a rule are listed in .dependency-cruiser-known-violations.json and tolerated; any other
 * fails the check. Rewrite that list once a violation is removed: `npm run check:layers -- --update`.
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

/** An import that fails the check: from a module whose path matches `from` to one matching `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to })

module.exports = {
  forbidden: [
    forbid('no-circular', 'No import cycle, at any length.', {}, { circular: true }),
    forbid(
      'domain-imports-only-domain',
      'domain/ is records and pure rules: it imports domain/, zod and node:crypto only.',
      { path: '^functions/domain/' },
      { pathNot: ['^functions/domain/', 'node_modules/zod/', '^(node:)?crypto$'] },
    ),
    forbid(
      'declarations-import-only-declarations',
      'config, env-names, table-schema, routes, consumers: no store, use case or adapter.',
      { path: DECLARATIONS },
      { path: '^functions/', pathNot: [DECLARATIONS, '^functions/domain/'] },
    ),
    forbid(
      'adapters-import-no-use-case',
      'stores/, runtime/, identity/, mail/ sit under core/: no use case, route or entry.',
      { path: '^functions/(stores|runtime|identity|mail)/' },
      { path: `^functions/(core|http)/|${ENTRY}` },
    ),
    forbid(
      'runtime-imports-no-store',
      'runtime/ (clock, deadline, retry, queue sender, secret box) is under stores/.',
      { path: '^functions/runtime/' },
      { path: '^functions/stores/' },
    ),
    forbid(
      'core-imports-store-interfaces-only',
      'core/ sees stores through their interfaces (*.store.ts, store-errors.ts), not an implementation.',
      { path: '^functions/core/' },
      { path: '^functions/stores/', pathNot: STORE_INTERFACES },
    ),
    forbid(
      'core-imports-no-entry',
      'core/ does not know HTTP or how it is wired: no http/, handlers/, wiring/, composition.',
      { path: '^functions/core/' },
      { path: `^functions/http/|${ENTRY}` },
    ),
    forbid(
      'http-imports-store-interfaces-only',
      'http/ calls use cases; it builds no store (the composition root does).',
      { path: '^functions/http/' },
      { path: '^functions/stores/', pathNot: STORE_INTERFACES },
    ),
    forbid(
      'http-imports-no-entry',
      'http/ is under handlers/ and wiring/: a route takes its deps; it never builds a runtime.',
      { path: '^functions/http/' },
      { path: ENTRY },
    ),
    forbid(
      'handlers-import-http-and-wiring',
      'A Lambda entry module hands its runtime to http/ or wiring/, not to core/ or stores/.',
      { path: '^functions/handlers/' },
      { path: '^functions/(core|stores|domain|mail)/' },
    ),
    forbid(
      'aws-sdk-only-in-adapters',
      'SDK commands and clients only in stores/, runtime/, identity/, mail/ and the composition.',
      { path: '^functions/', pathNot: SDK_ALLOWED },
      { path: 'node_modules/@aws-sdk/' },
    ),
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
  },
}
