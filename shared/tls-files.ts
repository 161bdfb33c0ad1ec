import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A PEM file named by a variable, read at boot; a problem names the variable and the cause. */
function readPem(variable: string, path: string, problems: string[]): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`${variable} cannot be read: ${(error as Error).message}`);
    return undefined;
  }
}

/** One or more PEM certificates (a CA bundle). */
export function readCertificates(
  variable: string,
  path: string,
  problems: string[],
): string | undefined {
  const pem = readPem(variable, path, problems);
  if (pem === undefined) return undefined;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    problems.push(`${variable} must hold PEM certificates (${path} does not)`);
    return undefined;
  }
}

/** An unencrypted PEM private key. */
export function readPrivateKey(
  variable: string,
  path: string,
  problems: string[],
): string | undefined {
  const pem = readPem(variable, path, problems);
  if (pem === undefined) return undefined;
  try {
    createPrivateKey(pem);
    return pem;
  } catch {
    problems.push(`${variable} must hold an unencrypted PEM private key (${path} does not)`);
    return undefined;
  }
}
