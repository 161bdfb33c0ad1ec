/**
 * What a report splits a process's CPU into: the project's own code, each library a create passes
 * through, Node's core, and V8's own work. `--cpu-prof` reports give them in this order.
 */
export const PROFILE_GROUPS = [
  'project',
  'fastify & Node HTTP',
  'kafkajs',
  'pino',
  'prom-client',
  'store driver',
  'OpenTelemetry',
  'other packages',
  'Node core',
  'native',
  'GC',
  'V8 unattributed',
] as const;

export type ProfileGroup = (typeof PROFILE_GROUPS)[number];

/** Where the project's own files are, as the start of a path inside the clone. */
export const PROJECT_DIRS = ['services/', 'shared/', 'bench/', 'deploy/', 'tooling/'];

const PACKAGE_GROUPS: Record<string, ProfileGroup> = {
  fastify: 'fastify & Node HTTP',
  'fastify-plugin': 'fastify & Node HTTP',
  avvio: 'fastify & Node HTTP',
  'find-my-way': 'fastify & Node HTTP',
  'fast-json-stringify': 'fastify & Node HTTP',
  'fast-querystring': 'fastify & Node HTTP',
  'fast-decode-uri-component': 'fastify & Node HTTP',
  'fast-uri': 'fastify & Node HTTP',
  'light-my-request': 'fastify & Node HTTP',
  'secure-json-parse': 'fastify & Node HTTP',
  'toad-cache': 'fastify & Node HTTP',
  'abstract-logging': 'fastify & Node HTTP',
  rfdc: 'fastify & Node HTTP',
  kafkajs: 'kafkajs',
  pino: 'pino',
  'pino-std-serializers': 'pino',
  'pino-abstract-transport': 'pino',
  'sonic-boom': 'pino',
  'thread-stream': 'pino',
  '@pinojs/redact': 'pino',
  'prom-client': 'prom-client',
  tdigest: 'prom-client',
  bintrees: 'prom-client',
  mongodb: 'store driver',
  bson: 'store driver',
  'mongodb-connection-string-url': 'store driver',
};

/** Node's HTTP modules: `node:http`, `node:_http_server`, `node:internal/http`… */
const NODE_HTTP = /^node:(internal\/)?_?http/;

/**
 * Fastify's own frames and Node's HTTP: code that calls back into the project's hooks and
 * handlers, and writes what they hand back. Libraries Fastify also uses (secure-json-parse,
 * rfdc) are not among them: the project calls those itself.
 */
const FRAMEWORK_PACKAGES = new Set(['fastify', 'avvio', 'find-my-way', 'light-my-request']);

/** Whether a frame of this area hands work to the project and back (`FRAMEWORK_PACKAGES`). */
export function isFrameworkArea(area: string): boolean {
  return FRAMEWORK_PACKAGES.has(area) || area.startsWith('@fastify/') || NODE_HTTP.test(area);
}

/**
 * The group of an area as `areaOf` names it: a package, a module of Node (its HTTP modules go
 * with fastify, as what answers a request), a file of the project, or V8's own work.
 */
export function groupOf(area: string): ProfileGroup {
  if (area === '(garbage collector)') return 'GC';
  if (area === '(program)') return 'V8 unattributed';
  if (area.startsWith('(')) return 'native';
  if (area.startsWith('node:')) return NODE_HTTP.test(area) ? 'fastify & Node HTTP' : 'Node core';
  if (PROJECT_DIRS.some((dir) => area.startsWith(dir))) return 'project';
  if (area.startsWith('@fastify/')) return 'fastify & Node HTTP';
  if (area.startsWith('@opentelemetry/')) return 'OpenTelemetry';
  if (area.startsWith('@mongodb-js/')) return 'store driver';
  return PACKAGE_GROUPS[area] ?? 'other packages';
}
