import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * A PEM file named by a variable, read at boot and checked with `parse`; a problem names the
 * variable and the cause.
 */
function readPem(
  variable: string,
  path: string,
  problems: string[],
  parse: (pem: string) => unknown,
  holds: string,
): string | undefined {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`${variable} cannot be read: ${(error as Error).message}`);
    return undefined;
  }
  try {
    parse(pem);
    return pem;
  } catch {
    problems.push(`${variable} must hold ${holds} (${path} does not)`);
    return undefined;
  }
}

/** One or more PEM certificates (a CA bundle). */
export function readCertificates(
  variable: string,
  path: string,
  problems: string[],
): string | undefined {
  return readPem(variable, path, problems, (pem) => new X509Certificate(pem), 'PEM certificates');
}

/** An unencrypted PEM private key. */
export function readPrivateKey(
  variable: string,
  path: string,
  problems: string[],
): string | undefined {
  return readPem(variable, path, problems, createPrivateKey, 'an unencrypted PEM private key');
}
