import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What node:util's parseArgs gives back for `config` (@types/node does not export its name). */
type ParsedFlags<C extends ParseArgsConfig> = ReturnType<typeof parseArgs<C>>;

/** How the project's scripts end: 1 when what they ran failed, 2 when their command line was refused. */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;

/** Every script takes `--help` (or `-h`). */
const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * The flags of a command line, read by node:util's parseArgs (strict: an unknown flag or a missing
 * value throws); `'help'` when `--help` or `-h` is among them, whatever else is.
 */
export function readFlags<const C extends ParseArgsConfig>(config: C): ParsedFlags<C> | 'help' {
  const parsed = parseArgs({ ...config, options: { ...config.options, ...HELP } });
  if ((parsed.values as { help?: boolean }).help === true) return 'help';
  return parsed as ParsedFlags<C>;
}

/**
 * A script's command line, read by `read` (which throws on a usage error): on `--help` the usage
 * is printed and the process exits 0; on a usage error the error and the usage go to stderr and
 * the process exits 2, before the script starts anything.
 */
export function commandLine<T>(usage: string, read: () => T | 'help'): T {
  let parsed: T | 'help';
  try {
    parsed = read();
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exit(EXIT_CODES.usage);
  }
  if (parsed === 'help') {
    console.log(usage);
    process.exit(EXIT_CODES.ok);
  }
  return parsed;
}
