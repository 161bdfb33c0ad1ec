/**
 * The import structure's rules, checked by `npm run lint` (`depcruise`): no cycle anywhere, the
 * product never reaches into the tooling, and bench and chaos share only what neither owns.
 * docs/how-to/develop.md shows how to draw the graph.
 * @type {import('dependency-cruiser').IConfiguration}
 */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, type-only imports included, means two modules are one concern or neither.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'product-not-tooling',
      severity: 'error',
      comment: 'The services and shared/ ship in the image; the tooling and the tests do not.',
      from: { path: '^(services|shared)/' },
      to: { path: '^(bench|chaos|deploy|test|tooling|scripts)/' },
    },
    {
      name: 'shared-not-services',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^services/' },
    },
    {
      name: 'shared-leaves-alone',
      severity: 'error',
      comment:
        'shared/README.md: contracts/, tls/ and batching/ import nothing of the project outside themselves.',
      from: { path: '^shared/(contracts|tls|batching)/' },
      to: { path: '^shared/', pathNot: '^shared/$1/' },
    },
    {
      name: 'shared-folders-apart',
      severity: 'error',
      comment:
        'shared/README.md: kafka/, http/ and tracing/ use the root, contracts/ and tls/, never one another.',
      from: { path: '^shared/(kafka|http|tracing)/' },
      to: { path: '^shared/(kafka|http|tracing)/', pathNot: '^shared/$1/' },
    },
    {
      name: 'kafkajs-patched-by-the-client',
      severity: 'error',
      comment:
        'shared/kafka/kafkajs-patches/README.md: the patches are installed by the Kafka client alone, so that no client of the process runs without them.',
      from: { pathNot: '^shared/kafka/(client[.]ts|kafkajs-patches/)|^test/' },
      to: { path: '^shared/kafka/kafkajs-patches/' },
    },
    {
      name: 'kafkajs-patches-alone',
      severity: 'error',
      comment: 'A patch of kafkajs stands on kafkajs and the version guard only.',
      from: { path: '^shared/kafka/kafkajs-patches/' },
      to: { path: '^(shared|services)/', pathNot: '^shared/kafka/kafkajs-patches/' },
    },
    {
      name: 'shared-root-gathers',
      severity: 'error',
      comment:
        "shared/README.md: at the root, service-settings.ts and metrics.ts gather what a folder declares; the root's other pieces stand on the root.",
      from: { path: '^shared/[^/]+[.]ts$', pathNot: '^shared/(service-settings|metrics)[.]ts$' },
      to: { path: '^shared/[^/]+/' },
    },
    {
      name: 'services-apart',
      severity: 'error',
      comment: 'The gateway and the writer meet only through shared/ (the contracts).',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'bench-not-chaos',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^chaos/' },
    },
    {
      name: 'chaos-not-bench',
      severity: 'error',
      from: { path: '^chaos/' },
      to: { path: '^bench/' },
    },
    {
      name: 'tooling-not-bench-chaos',
      severity: 'error',
      comment:
        "tooling/ is what bench and chaos share; only tooling/report-main.ts, which renders either one's record, imports them.",
      from: { path: '^tooling/', pathNot: '^tooling/report-main[.]ts$' },
      to: { path: '^(bench|chaos)/' },
    },
    {
      name: 'tooling-not-deploy',
      severity: 'error',
      comment:
        'deploy/local uses what the tools share (progress lines, flags); the other way round would make one concern of both.',
      from: { path: '^tooling/' },
      to: { path: '^deploy/' },
    },
    {
      name: 'tooling-not-services',
      severity: 'error',
      comment: 'What the tools share (flags, statistics, charts) knows nothing of the product.',
      from: { path: '^tooling/' },
      to: { path: '^services/' },
    },
    {
      name: 'tooling-not-test',
      severity: 'error',
      comment: 'The tests use the tooling, never the other way round.',
      from: { path: '^(bench|chaos|deploy|tooling)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(bench/nestjs|docs/examples|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mjs', '.js', '.json'],
    },
  },
};
