import { describe, expect, it } from 'vitest';
import {
  commandPackage,
  provisionPackages,
  type Installer,
} from '#local/provision/system-packages.ts';

/** Packages present while their name is in `installed`; an installer that adds what it is given. */
function machine(installed: string[], installs = true) {
  const packages = ['maven', 'chromium'].map((name) => ({
    name,
    neededFor: `the tests of ${name}`,
    present: () => installed.includes(name),
  }));
  const asked: string[][] = [];
  const installer: Installer = {
    install(names) {
      asked.push([...names]);
      if (installs) installed.push(...names);
    },
  };
  return { packages, installer, asked };
}

describe('provisionPackages', () => {
  it('When every package is there, then nothing is installed', () => {
    const { packages, installer, asked } = machine(['maven', 'chromium']);

    provisionPackages(packages, installer);
    expect(asked).toEqual([]);
  });

  it('When packages are missing and an installer is at hand, then the missing ones are installed in one go', () => {
    const { packages, installer, asked } = machine(['maven']);

    provisionPackages(packages, installer);
    expect(asked).toEqual([['chromium']]);
  });

  it('When packages are missing and nothing may install them, then the error names each, what it is for, and the command that installs them all', () => {
    const { packages } = machine([]);

    expect(() => {
      provisionPackages(packages, null);
    }).toThrow(
      [
        'Missing system packages (2):',
        '  - maven, for the tests of maven',
        '  - chromium, for the tests of chromium',
        'Install them as root: apt-get update && apt-get install -y maven chromium',
      ].join('\n'),
    );
  });

  it('When the installer fails, then the error names what is still missing', () => {
    const { packages, installer } = machine(['chromium'], false);

    expect(() => {
      provisionPackages(packages, installer);
    }).toThrow('Missing system packages (1):\n  - maven, for the tests of maven\n');
  });

  it('commandPackage: present while its command is on PATH', () => {
    const node = commandPackage('nodejs', 'node', 'nothing');

    expect([node.present(process.env), node.present({ PATH: '/nonexistent' })]).toEqual([
      true,
      false,
    ]);
  });
});
