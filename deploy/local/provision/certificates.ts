import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogged } from '../process/run-logged.ts';

export interface Certificates {
  /** The CA that signed the servers' certificate; what clients trust. */
  caFile: string;
  caKeyFile: string;
  /** The servers' certificate (for localhost and 127.0.0.1), then its key, in one PEM file. */
  serverFile: string;
  serverCertFile: string;
  serverKeyFile: string;
}

/**
 * A CA of its own (`<dir>/ca.pem`) and a certificate it signs for the local servers (in
 * `<dir>/tls`), made once per directory with the machine's openssl. Never committed: every
 * `--dir` gets its own, and the keys stay in it.
 */
export async function ensureCertificates(
  dir: string,
  logFile: string,
  name = 'plant-store local CA',
): Promise<Certificates> {
  const tls = join(dir, 'tls');
  const certificates = {
    caFile: join(dir, 'ca.pem'),
    caKeyFile: join(tls, 'ca.key'),
    serverFile: join(tls, 'server.pem'),
    serverCertFile: join(tls, 'server.crt'),
    serverKeyFile: join(tls, 'server.key'),
  };
  if (existsSync(certificates.serverFile)) return certificates;
  await mkdir(tls, { recursive: true, mode: 0o700 });
  const openssl: OpenSsl = (...args) => runLogged('openssl', args, { cwd: dir, logFile });
  await makeCa(openssl, certificates, name);
  await signServerCertificate(openssl, tls, certificates);
  await writeServerPem(openssl, tls, certificates);
  return certificates;
}

type OpenSsl = (...args: string[]) => Promise<string>;

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

async function makeCa(openssl: OpenSsl, certificates: Certificates, name: string): Promise<void> {
  await openssl(
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    certificates.caKeyFile,
    '-out',
    certificates.caFile,
    '-days',
    '825',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
}

/** A key of the servers' own, and the CA's certificate of it for localhost and 127.0.0.1. */
async function signServerCertificate(
  openssl: OpenSsl,
  tls: string,
  certificates: Certificates,
): Promise<void> {
  const request = join(tls, 'server.csr');
  await openssl(
    'req',
    '-new',
    ...NEW_KEY,
    '-keyout',
    certificates.serverKeyFile,
    '-out',
    request,
    '-subj',
    '/CN=localhost',
  );
  const extensions = join(tls, 'server.ext');
  await writeFile(
    extensions,
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    request,
    '-CA',
    certificates.caFile,
    '-CAkey',
    certificates.caKeyFile,
    '-CAserial',
    join(tls, 'ca.srl'),
    '-CAcreateserial',
    '-days',
    '825',
    '-extfile',
    extensions,
    '-out',
    certificates.serverCertFile,
  );
}

/** The servers' key as PKCS #8, then with its certificate in one PEM file; the keys made private. */
async function writeServerPem(
  openssl: OpenSsl,
  tls: string,
  certificates: Certificates,
): Promise<void> {
  const pkcs8File = join(tls, 'server.pkcs8.key');
  await openssl(
    'pkcs8',
    '-topk8',
    '-nocrypt',
    '-in',
    certificates.serverKeyFile,
    '-out',
    pkcs8File,
  );
  await rename(pkcs8File, certificates.serverKeyFile);
  const [key, chain] = await Promise.all([
    readFile(certificates.serverKeyFile, 'utf8'),
    readFile(certificates.serverCertFile, 'utf8'),
  ]);
  await writeFile(certificates.serverFile, `${key}${chain}`, { mode: 0o600 });
  await Promise.all([
    chmod(certificates.caKeyFile, 0o600),
    chmod(certificates.serverKeyFile, 0o600),
  ]);
}
