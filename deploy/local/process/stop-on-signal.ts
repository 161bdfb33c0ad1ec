/**
 * Runs `stop` on the first Ctrl-C, SIGTERM or closed terminal, then exits. The returned flag lets
 * the caller tell a requested stop from a server that died on its own.
 */
export function stopOnSignal(
  what: string,
  stop: () => Promise<void>,
): { readonly requested: boolean } {
  const stopping = { requested: false };
  const onSignal = (signal: NodeJS.Signals) => {
    stopping.requested = true;
    console.log(`${signal}: stopping ${what}…`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  return stopping;
}
