/**
 * The layers of the code (docs/architecture.md), checked by `npm run lint`:
 * a layer imports only the layers below it, and nothing imports in a circle
 * (type-only imports included), and SQL is built only in src/store/.
 *
 *   server, bin                wiring and commands: may use everything
 *   cli, mcp                   clients: only client, schemas, domain
 *   client                     the shared HTTP client: schemas, domain
 *   api                        HTTP: store, schemas, domain (never jobs or ledger)
 *   jobs                       scheduled work: backtest, ledger, store, schemas, domain
 *   backtest                   replays of history: store, schemas, domain (the nightly calibration is one)
 *   ledger                     the Xero connection: store, schemas, domain
 *   xero-server, demo          the Xero-compatible server and the demo generator (dev tools)
 *   store                      SQL: schemas, domain
 *   schemas                    zod: domain
 *   domain                     pure computations: nothing of ours
 *   clock, config, log         process plumbing: any layer but domain and schemas
 */
const layer = (name) => `^src/${name}/`;
const only = (from, allowed, comment) => ({
  name: `${from}-imports-only-${allowed.join('-') || 'itself'}`,
  comment,
  severity: 'error',
  from: { path: layer(from) },
  to: {
    path: '^src/',
    pathNot: [layer(from), ...allowed.map((a) => (a.endsWith('.ts') ? `^src/${a.replace('.', '\\.')}$` : layer(a)))],
  },
});
const plumbing = ['clock.ts', 'config.ts', 'log.ts'];

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'No import circles, type-only ones included.', severity: 'error', from: {}, to: { circular: true } },
    only('domain', [], 'The domain is pure: it imports nothing of ours outside itself.'),
    only('schemas', ['domain'], 'Schemas sit on the domain only.'),
    only('store', ['schemas', 'domain', ...plumbing], 'The store holds SQL; it sits on schemas and domain.'),
    only('ledger', ['store', 'schemas', 'domain', ...plumbing], 'The Xero connection writes through the store.'),
    only('jobs', ['backtest', 'ledger', 'store', 'schemas', 'domain', ...plumbing], 'Jobs run over the ledger, the store and the domain, and replay history (the calibration).'),
    only('backtest', ['store', 'schemas', 'domain', ...plumbing], 'The backtest replays the store through the domain.'),
    only('api', ['store', 'schemas', 'domain', ...plumbing], 'HTTP reads the store; it never runs jobs or talks to the ledger.'),
    only('client', ['schemas', 'domain'], 'The shared HTTP client.'),
    only('cli', ['client', 'schemas', 'domain'], 'The CLI talks to the service through the shared HTTP client only.'),
    only('mcp', ['client', 'schemas', 'domain'], 'The MCP server talks to the service through the shared HTTP client only.'),
    only('demo', ['domain'], 'The demo generator builds Xero bodies from the domain.'),
    only('xero-server', ['demo', 'domain', 'ledger'], 'The Xero-compatible server serves demo bodies.'),
    {
      name: 'plumbing-stays-out-of-pure-layers',
      severity: 'error',
      from: { path: '^src/(clock|config|log)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(clock|config|log)\\.ts$' },
    },
    {
      name: 'sql-only-in-the-store',
      comment: 'Queries are (db, params) functions of src/store/: nothing else builds SQL or reads the tables.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: ['node_modules/drizzle-orm', 'node_modules/pg/', 'node_modules/@electric-sql/pglite', '^src/store/schema\\.ts$'] },
    },
    { name: 'no-orphans', severity: 'error', from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$' }, to: {} },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
