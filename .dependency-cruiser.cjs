// The import rules of docs/architecture.md ("Import rules"), checked by `make test` before mocha.
// Each rule names the folder that may not import another, and why; fix the import, or move the
// shared code below both folders, rather than widening a rule.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes both modules one unit: neither can change or be tested alone. Move what both need into a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'entry-points-are-not-imported',
      severity: 'error',
      comment: 'src/cli and src/server compose the program; nothing below them may reach back up (bench, scripts and tests are entry points too).',
      from: { path: '^src/', pathNot: '^src/(cli|server)/' },
      to: { path: '^src/(cli|server)/' },
    },
    {
      name: 'api-only-from-entry-points',
      severity: 'error',
      comment: 'The HTTP layer is an edge, used only by entry points (src/server, src/cli; bench and tests too): use cases raise DomainError (src/domain/errors.ts) and the façade maps it; shared helpers live below src/api.',
      from: { path: '^src/', pathNot: '^src/(api|server|cli)/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'use-cases-below-controllers-and-agents',
      severity: 'error',
      comment: 'src/functions, src/secrets, src/fetch and src/webhooks are used by the façade and the controllers; constants both share live below both (e.g. src/schemas/deadlines.ts).',
      from: { path: '^src/(functions|secrets|fetch|webhooks)/' },
      to: { path: '^src/(controller|runtime|build)/' },
    },
    {
      name: 'cluster-port-imports-only-below',
      severity: 'error',
      comment: 'The cluster port and its backends know objects, not use cases: they may import only src/cluster, src/schemas, src/config and src/domain.',
      from: { path: '^src/cluster/' },
      to: { path: '^src/', pathNot: '^src/(cluster|schemas|config|domain)/' },
    },
    {
      name: 'artifact-store-imports-only-below',
      severity: 'error',
      comment: 'The artifact store port and its backends (filesystem, S3) store bytes under keys: they may import only src/artifacts, src/config and src/domain; record formats live with the use cases (src/functions/archived).',
      from: { path: '^src/artifacts/' },
      to: { path: '^src/', pathNot: '^src/(artifacts|config|domain)/' },
    },
    {
      name: 'schemas-are-the-bottom',
      severity: 'error',
      comment:
        'src/schemas is imported by every layer. It may import src/sdk (a leaf) and src/cluster/objects.ts, the generic Kubernetes object model, which imports nothing itself.',
      from: { path: '^src/schemas/' },
      to: { path: '^src/', pathNot: '^src/(schemas|sdk)/|^src/cluster/objects[.]ts$' },
    },
    {
      name: 'leaf-folders-import-nothing',
      severity: 'error',
      comment: 'src/domain (error kinds) and src/config (logger, metrics, settings) are imported by every layer, so they import no other folder.',
      from: { path: '^src/(domain|config)/' },
      to: { path: '^src/', pathNot: '^src/$1/' },
    },
    {
      name: 'in-pod-code-stays-out-of-the-control-plane',
      severity: 'error',
      comment:
        'Build and browser pods hold no cluster rights and run beside user code: src/build, src/sdk and src/runtime (except the node agent) never import the façade, controllers, store or use cases.',
      from: { path: '^src/(build|sdk|runtime)/', pathNot: '^src/runtime/node-agent/' },
      to: { path: '^src/(api|controller|cluster|artifacts|functions|secrets|fetch|webhooks|server|cli)/' },
    },
    {
      name: 'control-plane-never-loads-agent-code',
      severity: 'error',
      comment: 'The façade, controllers and use cases never load user code: they may not import the in-pod agents or the sandbox.',
      from: { path: '^src/(api|controller|cluster|artifacts|functions|secrets|fetch|webhooks)/' },
      to: { path: '^src/(build|runtime/pod-agent|runtime/agent-common|runtime/sandbox)/' },
    },
    {
      name: 'sdk-is-a-leaf',
      severity: 'error',
      comment: 'src/sdk is bundled into every user Function: it imports only Node built-ins and its own files (types from src/schemas are erased by the build).',
      from: { path: '^src/sdk/' },
      to: { path: '^src/', pathNot: '^src/sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sdk-has-no-packages',
      severity: 'error',
      comment: 'src/sdk is bundled into every user Function: an npm package there would be bundled into each of them.',
      from: { path: '^src/sdk/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'console-is-browser-code',
      severity: 'error',
      comment: 'src/console runs in the user\'s browser as ES modules compiled by tsc and served as they are: it imports only its own files, never another folder or an npm package.',
      from: { path: '^src/console/' },
      to: { pathNot: '^src/console/' },
    },
    {
      name: 'console-is-not-imported',
      severity: 'error',
      comment: 'The façade serves the compiled console as files (src/api/console.ts); no server code imports browser code.',
      from: { path: '^src/', pathNot: '^src/console/' },
      to: { path: '^src/console/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type import from a higher layer is the same coupling.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
