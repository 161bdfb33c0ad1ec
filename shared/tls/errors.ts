/** Node's codes for a certificate it does not trust. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
]);

/** Why the server's certificate was not trusted, when `error` or one of its causes says so. */
export function untrustedCertificate(error: unknown): string | undefined {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const { code } = at as Error & { code?: unknown };
    if (typeof code === 'string' && UNTRUSTED.has(code)) return tlsReason(at.message);
  }
  return undefined;
}

/** Without the "Connection error: " of kafkajs and the advice about --use-system-ca of Node. */
export function tlsReason(message: string): string {
  return message.replace(/^Connection error: /, '').replace(/; if the root CA is installed.*$/, '');
}
