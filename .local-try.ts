import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
const ca = readFileSync('/tmp/sec3/ca.pem', 'utf8');
const env = Object.fromEntries(readFileSync('/tmp/sec3/gateway.env','utf8').trim().split('\n').map(l => { const [k, ...v] = l.split('='); return [k, v.join('=').slice(1,-1)]; }));
const base = { brokers: ['127.0.0.1:29092'], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3000 };
const cases: Record<string, object> = {
  noCredentials: { ssl: { ca } },
  plaintext: {},
  wrongPassword: { ssl: { ca }, sasl: { mechanism: 'scram-sha-512', username: 'gateway', password: 'nope' } },
  otherCa: { ssl: { ca: readFileSync('/tmp/otherca/ca.pem','utf8') }, sasl: { mechanism: 'scram-sha-512', username: 'gateway', password: env.KAFKA_SASL_PASSWORD } },
  otherCaClientCert: { ssl: { ca, cert: readFileSync('/tmp/otherca/client.crt','utf8'), key: readFileSync('/tmp/otherca/client.key','utf8') }, sasl: { mechanism: 'scram-sha-512', username: 'gateway', password: env.KAFKA_SASL_PASSWORD } },
  wrongMechanism: { ssl: { ca }, sasl: { mechanism: 'scram-sha-256', username: 'gateway', password: env.KAFKA_SASL_PASSWORD } },
};
for (const [name, opts] of Object.entries(cases)) {
  const admin = new Kafka({ clientId: 'probe', ...base, ...opts }).admin();
  const t = Date.now();
  try { await admin.connect(); await admin.listTopics(); console.log(name, 'CONNECTED'); }
  catch (e) { const chain = []; for (let a: any = e; a; a = a.cause) chain.push(`${a.name}: ${a.message} code=${a.code} type=${a.type}`); console.log(name, Date.now() - t, 'ms', chain.join(' <- ')); }
  finally { await admin.disconnect(); }
}
