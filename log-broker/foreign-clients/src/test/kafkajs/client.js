// KafkaJS against a Kafka-protocol broker, for the foreign-clients tests. One process per role:
//
//   node client.js produce <bootstrap> <topic>          reads "key value" lines from stdin, sends them
//                                                       (idempotent, acks=all) and exits 0 once all are acknowledged
//   node client.js consume <bootstrap> <topic> <group>  a group member reading from the earliest uncommitted offset;
//                                                       prints "# assigned <partitions>" after each rebalance and
//                                                       "<partition> <offset> <key> <value>" per record, commits after
//                                                       each record, and on SIGTERM leaves the group and exits 0
//   node client.js topics <bootstrap>                   prints the name of every topic, one per line
//   node client.js transact <bootstrap> <topic>         reads "commit|abort key value" lines from stdin; each line is
//                                                       one transaction of one record (transactional id
//                                                       orderflow-kafkajs-tx), committed or aborted as it says; prints
//                                                       "committed N aborted M" once all are done
//
// With SASL_MECHANISM (SCRAM-SHA-256 or SCRAM-SHA-512), SASL_USERNAME, SASL_PASSWORD and SSL_CA_LOCATION (a PEM file
// of the CA to trust) in the environment it connects with TLS and logs in (SASL_SSL); without them, in plain text.
'use strict';

const { Kafka, logLevel } = require('kafkajs');
const fs = require('node:fs');
const readline = require('node:readline');

const [mode, bootstrap, topic, group] = process.argv.slice(2);
const env = process.env;
const kafka = new Kafka({
  clientId: 'orderflow-kafkajs',
  brokers: [bootstrap],
  logLevel: logLevel.WARN,
  retry: { retries: 10 },
  ssl: env.SSL_CA_LOCATION ? { ca: [fs.readFileSync(env.SSL_CA_LOCATION)] } : undefined,
  sasl: env.SASL_MECHANISM
    ? { mechanism: env.SASL_MECHANISM.toLowerCase(), username: env.SASL_USERNAME, password: env.SASL_PASSWORD }
    : undefined,
});

function out(line) {
  process.stdout.write(line + '\n');
}

async function produce() {
  const lines = [];
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() !== '') {
      const space = line.indexOf(' ');
      lines.push({ key: line.slice(0, space), value: line.slice(space + 1) });
    }
  }
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  // One send per record, in order, so that each key's records reach the log in the order they were read.
  for (const message of lines) {
    await producer.send({ topic, acks: -1, messages: [message] });
  }
  await producer.disconnect();
  out(`sent ${lines.length}`);
}

async function consume() {
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 500 });
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    const partitions = event.payload.memberAssignment[topic] || [];
    out(`# assigned ${[...partitions].sort((a, b) => a - b).join(' ')}`);
  });
  let stopping = false;
  const stop = async () => {
    if (!stopping) {
      stopping = true;
      await consumer.disconnect();
      process.exit(0);
    }
  };
  process.on('SIGTERM', stop);
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    autoCommitThreshold: 1,
    eachMessage: async ({ partition, message }) => {
      out(`${partition} ${message.offset} ${message.key.toString()} ${message.value.toString()}`);
    },
  });
}

async function transact() {
  const lines = [];
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() !== '') {
      const [outcome, key, ...value] = line.split(' ');
      lines.push({ outcome, key, value: value.join(' ') });
    }
  }
  const producer = kafka.producer({
    transactionalId: 'orderflow-kafkajs-tx',
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: true,
  });
  await producer.connect();
  let committed = 0;
  let aborted = 0;
  for (const { outcome, key, value } of lines) {
    const transaction = await producer.transaction();
    await transaction.send({ topic, acks: -1, messages: [{ key, value }] });
    if (outcome === 'commit') {
      await transaction.commit();
      committed++;
    } else {
      await transaction.abort();
      aborted++;
    }
  }
  await producer.disconnect();
  out(`committed ${committed} aborted ${aborted}`);
}

async function topics() {
  const admin = kafka.admin();
  await admin.connect();
  for (const name of await admin.listTopics()) {
    out(name);
  }
  await admin.disconnect();
}

const roles = { produce, consume, topics, transact };
if (!roles[mode]) {
  process.stderr.write(`usage: node client.js produce|consume|topics|transact <bootstrap> [topic] [group]\n`);
  process.exit(2);
}
roles[mode]().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
