import type { ChildProcess } from 'node:child_process';

export interface ChildOutput {
  /** Everything printed so far, stdout and stderr together. */
  output: () => string;
  /** Resolves once `text` was printed; rejects if the process exits first. */
  printed: (text: string) => Promise<void>;
  exited: Promise<number | null>;
  /**
   * Resolves with the exit code once its stdout and stderr are closed too: what it printed last
   * may still be unread when it has exited.
   */
  closed: Promise<number | null>;
}

/** Collects what a child process prints on its piped stdout and stderr. */
export function watchOutput(child: ChildProcess, name = 'the process'): ChildOutput {
  let output = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    output: () => output,
    exited,
    closed,
    printed: (text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
        void exited.then(() => {
          reject(new Error(`${name} exited before printing "${text}":\n${output}`));
        });
      }),
  };
}
