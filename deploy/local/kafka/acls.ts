import kafkajs, { Kafka, logLevel, type AclEntry } from 'kafkajs';
import {
  DLQ_READER_GROUP_PREFIX,
  GATEWAY_GROUP_PREFIX,
  TOPICS,
  WRITER_GROUP,
} from '#shared/contracts/kafka.ts';
import type { KafkaConnection } from '#shared/kafka/connection.ts';

/** The principals of a secured stack besides the brokers' own. */
export const PRINCIPALS = ['gateway', 'writer', 'producer', 'dlq'] as const;
export type Principal = (typeof PRINCIPALS)[number];

/**
 * Reply topics of the `producer` principal (another service producing commands) start with this.
 * The writer may answer on any topic starting with TOPICS.replies, which this one does.
 */
export const PRODUCER_REPLY_PREFIX = `${TOPICS.replies}.producer.`;
/** Consumer groups of the `producer` principal start with this. */
export const PRODUCER_GROUP_PREFIX = 'producer.';

type Resource = 'topic' | 'group';
type Operation = 'read' | 'write' | 'delete';
interface Grant {
  operation: Operation;
  resource: Resource;
  name: string;
  prefixed?: true;
}

/** Least privilege: what each principal's service does, and nothing more. */
export const GRANTS: Readonly<Record<Principal, readonly Grant[]>> = {
  gateway: [
    { operation: 'write', resource: 'topic', name: TOPICS.create },
    { operation: 'read', resource: 'topic', name: TOPICS.replies },
    { operation: 'read', resource: 'group', name: GATEWAY_GROUP_PREFIX, prefixed: true },
  ],
  writer: [
    { operation: 'read', resource: 'topic', name: TOPICS.create },
    { operation: 'read', resource: 'group', name: WRITER_GROUP },
    { operation: 'write', resource: 'topic', name: TOPICS.replies, prefixed: true },
    { operation: 'write', resource: 'topic', name: TOPICS.dlq },
  ],
  producer: [
    { operation: 'write', resource: 'topic', name: TOPICS.create },
    { operation: 'read', resource: 'topic', name: PRODUCER_REPLY_PREFIX, prefixed: true },
    { operation: 'read', resource: 'group', name: PRODUCER_GROUP_PREFIX, prefixed: true },
  ],
  dlq: [
    { operation: 'read', resource: 'topic', name: TOPICS.dlq },
    { operation: 'write', resource: 'topic', name: TOPICS.create },
    { operation: 'read', resource: 'group', name: DLQ_READER_GROUP_PREFIX, prefixed: true },
    { operation: 'delete', resource: 'group', name: DLQ_READER_GROUP_PREFIX, prefixed: true },
  ],
};

// Node's detection of a CommonJS module's named exports misses these four of kafkajs.
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;
const OPERATIONS = {
  read: AclOperationTypes.READ,
  write: AclOperationTypes.WRITE,
  delete: AclOperationTypes.DELETE,
};
const RESOURCES = { topic: AclResourceTypes.TOPIC, group: AclResourceTypes.GROUP };

function aclEntries(grants: Readonly<Record<string, readonly Grant[]>>): AclEntry[] {
  return Object.entries(grants).flatMap(([principal, list]) =>
    list.map((grant) => ({
      principal: `User:${principal}`,
      host: '*',
      operation: OPERATIONS[grant.operation],
      permissionType: AclPermissionTypes.ALLOW,
      resourceType: RESOURCES[grant.resource],
      resourceName: grant.name,
      resourcePatternType:
        grant.prefixed === true ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
    })),
  );
}

/** Applies GRANTS through the Admin API (creating an ACL that exists is a no-op). */
export async function applyAcls(admin: KafkaConnection): Promise<void> {
  const client = new Kafka({ clientId: 'plant-store-acls', ...admin, logLevel: logLevel.WARN });
  const adminClient = client.admin();
  await adminClient.connect();
  try {
    await adminClient.createAcls({ acl: aclEntries(GRANTS) });
  } finally {
    await adminClient.disconnect();
  }
}
