// The scale-out bus: NATS JetStream. One stream holds the tenant subject family `<prefix>.events.<tenant>`
// (kept BUS_MAX_AGE); publish resolves only once JetStream has stored every chunk of the batch, so ingest
// answers 202 only for what the broker holds. Each replica group reads the stream through its own durable
// consumer (every replica holds every tenant graph), acks a record only after the graph write, and moves a
// record that keeps failing to the dead-letter stream `<prefix>.deadletter.<tenant>` (same age).
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  JSONCodec,
  nanos,
  StorageType,
  type ConnectionOptions,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import { doneWith, encodeEnvelopeJson } from '../ingest/envelope-json.js';
import { BrokerUnavailableError } from './bus.js';
import type { Bus, BusHandler, BusRecord, Delivery } from './bus.js';
import type { BusLog } from './memory.js';

export interface JetStreamBusOptions {
  /** `nats://host:port`, several comma separated (BUS_URL). */
  url: string;
  /** Subject prefix (BUS_SUBJECT_PREFIX): subjects `<prefix>.events.<tenant>`, `<prefix>.deadletter.<tenant>`. */
  prefix: string;
  /** How long the stream keeps records, handled or not, and dead letters (BUS_MAX_AGE). */
  maxAgeMs: number;
  /** Deliveries of one record before it is dead-lettered (BUS_MAX_DELIVER). */
  maxDeliver: number;
  /** The durable consumer's name (BUS_CONSUMER): one per replica group; each group reads every record. */
  consumer: string;
  /** Records up to this stream sequence are already in the restored snapshot. */
  afterSeq: number;
  user?: string;
  password?: string;
  tls?: { ca?: string; cert?: string; key?: string };
  logger?: BusLog;
  /** Told whenever the broker connection goes up (true) or down (false). */
  onConnection?: (connected: boolean) => void;
  /**
   * Told once when the bus stops for good (the spec: the process then exits): the connection closed by the
   * client library (not by close()), or the stream or this consumer gone from a broker that is up.
   */
  onFatal?: (error: Error) => void;
  /** Delay before a failed record is delivered again; default 1 s. */
  retryDelayMs?: number;
  /** How long the first connection is tried before the start fails; default 30 s. */
  connectTimeoutMs?: number;
  /** Longest wait for JetStream to acknowledge a chunk; default 30 s (a loaded broker is slow, not gone). */
  publishTimeoutMs?: number;
}

export interface JetStreamBus extends Bus {
  /** The highest stream sequence this consumer has handled (applied or dead-lettered). */
  lastSeq(): number;
  /** JetStream ages records out by BUS_MAX_AGE: nothing to compact. */
  compact(uptoSeq: number): Promise<void>;
  connected(): boolean;
  readonly streamName: string;
  readonly deadLetterStream: string;
  readonly deadLetterSubject: (tenant: string) => string;
}

export { BrokerUnavailableError } from './bus.js';

const HEADER_META = 'Pathgate-Record';
/** What the broker answers for a stream or consumer it does not have. */
const NOT_FOUND = /consumer not found|stream not found/i;
/** Answers in a row, from a broker that is up, before a missing consumer counts as gone for good. */
const GONE_CONFIRMATIONS = 3;
/** Chunks of one batch awaiting JetStream's acks at once. */
const PUBLISH_WINDOW = 16;
/** Acks kept to send again after a reconnect. */
const RECENT_ACKS = 1_024;
const HEADER_ENCODING = 'Pathgate-Encoding';
const HEADER_REASON = 'Pathgate-Dead-Reason';
const HEADER_ORIGIN = 'Pathgate-Origin-Seq';
const meta = JSONCodec<Omit<BusRecord, 'envelope' | 'envelopeJson'>>();

/** Stream names allow letters, digits, `-` and `_`; the prefix may carry dots. */
export function streamNames(prefix: string): { events: string; deadLetter: string } {
  const base = prefix.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
  return { events: `${base}_EVENTS`, deadLetter: `${base}_DEADLETTER` };
}

export function connectionOptions(options: JetStreamBusOptions): ConnectionOptions {
  const read = (file: string | undefined) => (file ? readFileSync(file, 'utf8') : undefined);
  const tls = options.tls;
  return {
    servers: options.url.split(',').map((s) => s.trim()),
    user: options.user,
    pass: options.password,
    ...(tls && (tls.ca || tls.cert || tls.key)
      ? { tls: { ca: read(tls.ca), cert: read(tls.cert), key: read(tls.key) } }
      : {}),
    name: `pathgate ${options.consumer}`,
    // Reconnect for ever, backing off with jitter: ingest answers 503 meanwhile.
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    reconnectJitter: 500,
    pingInterval: 5_000,
    maxPingOut: 2,
    timeout: options.connectTimeoutMs ?? 30_000,
    // Publishes made while disconnected are refused at once (503), not buffered.
    reconnectBufSize: 0,
  } as ConnectionOptions;
}

export async function createJetStreamBus(options: JetStreamBusOptions): Promise<JetStreamBus> {
  const log = options.logger;
  const names = streamNames(options.prefix);
  const eventsSubject = (tenant: string) => `${options.prefix}.events.${tenant}`;
  const deadLetterSubject = (tenant: string) => `${options.prefix}.deadletter.${tenant}`;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 30_000;

  let nc: NatsConnection;
  try {
    nc = await connect(connectionOptions(options));
  } catch (error) {
    throw new Error(
      `BUS_URL=${JSON.stringify(redactUrl(options.url))}: cannot connect to NATS (${(error as Error).message})`,
      { cause: error },
    );
  }
  let up = true;
  options.onConnection?.(true);
  const jsm: JetStreamManager = await nc.jetstreamManager();
  const js: JetStreamClient = nc.jetstream();
  await ensureStream(jsm, { name: names.events, subjects: [`${options.prefix}.events.*`] }, options.maxAgeMs);
  await ensureStream(
    jsm,
    { name: names.deadLetter, subjects: [`${options.prefix}.deadletter.*`] },
    options.maxAgeMs,
  );
  // The consumer restarts from the snapshot: what a replica held in memory died with it.
  await jsm.consumers.delete(names.events, options.consumer).catch(() => undefined);
  await jsm.consumers.add(names.events, {
    durable_name: options.consumer,
    ack_policy: AckPolicy.Explicit,
    ...(options.afterSeq > 0
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: options.afterSeq + 1 }
      : { deliver_policy: DeliverPolicy.All }),
    ack_wait: nanos(30_000),
    max_ack_pending: 1_000,
  });
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;

  let closed = false;
  let fatal = false;
  const stopForGood = (error: Error) => {
    if (closed || fatal) return;
    fatal = true;
    log?.error({ err: error }, 'bus: stopped for good');
    options.onFatal?.(error);
  };
  // Reconnection is for ever, so the library closes the connection only when it gives up (an authorization
  // the server no longer grants, for instance): nothing will bring it back.
  void nc.closed().then((error) => {
    if (!closed)
      stopForGood(new Error(`bus: the NATS connection closed${error ? ` (${error.message})` : ''}`));
  });

  let handler: BusHandler | null = null;
  let handled = options.afterSeq;
  let messages: ConsumerMessages | undefined;
  let loop: Promise<void> = Promise.resolve();
  const publishing = new Set<Promise<unknown>>();
  const inFlight = new Set<() => void>();

  (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' && up) {
        up = false;
        // Batches waiting for acks will not get them from this connection: answer 503 now, not at the timeout.
        for (const fail of inFlight) fail();
        options.onConnection?.(false);
        log?.warn(
          { server: status.data },
          'bus: NATS connection lost; reconnecting, ingest answers 503 meanwhile',
        );
      } else if (status.type === 'reconnect' && !up) {
        up = true;
        options.onConnection?.(true);
        resendAcks();
        // The broker may have restarted and forgotten this consumer's pull: pull afresh now.
        messages?.stop();
        log?.info({ server: status.data }, 'bus: NATS connection back');
      }
    }
  })().catch(() => undefined);

  function encode(record: BusRecord): { data: Uint8Array; headers: MsgHdrs } {
    const { envelope, envelopeJson, ...rest } = record;
    const h = natsHeaders();
    h.set(HEADER_META, new TextDecoder().decode(meta.encode(rest)));
    let data: Uint8Array = encodeEnvelopeJson(envelopeJson ?? JSON.stringify(envelope));
    // The message holds a copy: a worker may fill the chunk's bytes again.
    doneWith(envelopeJson);
    // A chunk is at most 1 MiB of JSON; a broker whose max_payload is that too takes it compressed.
    if (data.byteLength + 4096 > maxPayload) {
      data = gzipSync(data);
      h.set(HEADER_ENCODING, 'gzip');
    }
    return { data, headers: h };
  }

  function decode(m: JsMsg): Delivery {
    const head = m.headers?.get(HEADER_META);
    if (!head) throw new Error('bus message without its record header');
    const rest = JSON.parse(head) as Omit<BusRecord, 'envelope' | 'envelopeJson'>;
    const raw = m.headers?.get(HEADER_ENCODING) === 'gzip' ? gunzipSync(m.data) : m.data;
    const envelope = JSON.parse(Buffer.from(raw).toString('utf8')) as Delivery['envelope'];
    return { ...rest, envelope, seq: m.seq };
  }

  // Seqs applied lately, so a redelivery of one whose ack was lost is not applied again.
  const applied = new Set<number>();
  const appliedOrder: number[] = [];
  function remember(seq: number): void {
    applied.add(seq);
    appliedOrder.push(seq);
    if (appliedOrder.length > 100_000) applied.delete(appliedOrder.shift()!);
  }
  // Acks made while the connection is down would be dropped and the records come again only after the
  // ack wait: they are sent as soon as it is back.
  // The last acks sent before it went down may have died with a broker that was killed: those are sent
  // again too (acking twice is harmless).
  let lostAcks: string[] = [];
  const recentAcks: string[] = [];
  function ack(m: JsMsg): void {
    // JsMsgImpl's reply subject: the ack is a message to it.
    const reply = (m as unknown as { reply?: string }).reply;
    if (up && !nc.isClosed()) {
      m.ack();
      if (reply) {
        recentAcks.push(reply);
        if (recentAcks.length > RECENT_ACKS) recentAcks.shift();
      }
    } else if (reply) lostAcks.push(reply);
  }
  function resendAcks(): void {
    const replies = [...recentAcks.splice(0), ...lostAcks];
    lostAcks = [];
    for (const reply of replies) nc.publish(reply, '+ACK');
  }

  async function deadLetter(m: JsMsg, reason: string): Promise<void> {
    const tenant = m.subject.slice(m.subject.lastIndexOf('.') + 1);
    const h = natsHeaders();
    for (const [key, values] of m.headers ?? []) for (const value of values) h.append(key, value);
    h.set(HEADER_REASON, reason.slice(0, 500).replace(/[\r\n]+/g, ' '));
    h.set(HEADER_ORIGIN, String(m.seq));
    await js.publish(deadLetterSubject(tenant), m.data, {
      headers: h,
      msgID: `dead-${names.events}-${m.seq}`,
      timeout: publishTimeoutMs,
    });
  }

  async function handle(m: JsMsg): Promise<void> {
    // A record failed earlier comes again after later ones: it is applied then, out of order (the writer's
    // upserts keep the newest `last_seen`), or dead-lettered.
    if (m.seq <= options.afterSeq) {
      m.ack();
      return;
    }
    // Applied before, its ack lost with the connection: ack again, do not apply twice.
    if (applied.has(m.seq)) {
      ack(m);
      return;
    }
    try {
      await handler!(decode(m));
      remember(m.seq);
      ack(m);
      handled = Math.max(handled, m.seq);
    } catch (error) {
      const deliveries = m.info.redeliveryCount;
      if (deliveries >= options.maxDeliver) {
        try {
          await deadLetter(m, (error as Error).message ?? String(error));
          m.term();
          handled = Math.max(handled, m.seq);
          log?.error(
            { err: error, seq: m.seq, deliveries, subject: deadLetterSubject(m.subject.split('.').at(-1)!) },
            'bus: a record failed every delivery; moved to the dead-letter stream',
          );
        } catch (dlqError) {
          log?.error(
            { err: dlqError, seq: m.seq },
            'bus: could not dead-letter a record; it will come again',
          );
          m.nak(retryDelayMs);
        }
      } else {
        log?.warn({ err: error, seq: m.seq, deliveries }, 'bus: a record failed; it will be delivered again');
        m.nak(retryDelayMs);
      }
    }
  }

  async function consumeLoop(): Promise<void> {
    // consume() keeps pulling across reconnects; it ends only when closed, or when the broker, up and
    // answering, says the stream or this consumer is gone (deleted by hand): that is for good, since
    // recreating it here would choose where to resume behind the operator's back. A restart recreates it
    // after the restored snapshot.
    let gone = 0;
    while (!closed && !fatal) {
      try {
        const consumer = await js.consumers.get(names.events, options.consumer);
        gone = 0;
        // Short pulls: after the broker restarts, a pull it forgot is replaced within seconds.
        // abort_on_missing_resource: a consumer deleted under the pull ends it (and is then looked up),
        // instead of waiting silently for one to be made again.
        messages = await consumer.consume({
          max_messages: 256,
          expires: 5_000,
          abort_on_missing_resource: true,
        });
        for await (const m of messages) await handle(m);
      } catch (error) {
        if (closed) return;
        if (up && NOT_FOUND.test((error as Error).message) && ++gone >= GONE_CONFIRMATIONS) {
          stopForGood(
            new Error(
              `bus: the consumer ${JSON.stringify(options.consumer)} on stream ${names.events} is gone (${(error as Error).message})`,
              { cause: error },
            ),
          );
          return;
        }
        log?.warn({ err: error }, 'bus: consumer interrupted; resuming');
        await sleep(retryDelayMs);
      }
    }
  }

  async function consumerIdle(): Promise<boolean> {
    const info = await jsm.consumers.info(names.events, options.consumer);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  }

  const bus: JetStreamBus = {
    streamName: names.events,
    deadLetterStream: names.deadLetter,
    deadLetterSubject,
    async publish(records: BusRecord[]): Promise<void> {
      if (closed) throw new Error('bus: closed');
      if (!up || nc.isClosed()) throw new BrokerUnavailableError('bus: NATS is unreachable');
      let fail!: () => void;
      const lost = new Promise<never>((_resolve, reject) => {
        fail = () => reject(new Error('the connection to NATS was lost'));
      });
      lost.catch(() => undefined);
      inFlight.add(fail);
      const sent = (async () => {
        // Chunks are sent in order on one connection, so the stream stores them in order, and in a window
        // of PUBLISH_WINDOW awaiting their acks together rather than one round trip each. The message id
        // makes a retried publish a duplicate JetStream drops.
        const pending: Promise<unknown>[] = [];
        for (const record of records) {
          const { data, headers } = encode(record);
          pending.push(
            js.publish(eventsSubject(record.tenant), data, {
              headers,
              msgID: `${record.batchId}.${record.chunk}`,
              timeout: publishTimeoutMs,
            }),
          );
          if (pending.length >= PUBLISH_WINDOW) await Promise.all(pending.splice(0));
        }
        await Promise.all(pending);
      })();
      sent.catch(() => undefined);
      const done = Promise.race([sent, lost])
        .finally(() => inFlight.delete(fail))
        .catch((error: unknown) => {
          log?.error({ err: error, records: records.length }, 'bus: JetStream did not acknowledge a batch');
          throw new BrokerUnavailableError(
            `bus: JetStream did not acknowledge the batch (${(error as Error).message})`,
            { cause: error },
          );
        });
      publishing.add(done);
      const settle = () => publishing.delete(done);
      done.then(settle, settle);
      return done;
    },
    consume(h: BusHandler): void {
      if (handler) throw new Error('bus: a consumer is already registered');
      handler = h;
      loop = consumeLoop();
    },
    async drain(): Promise<void> {
      // Everything in the stream (from any replica) handled: the consumer has nothing pending or unacked.
      await Promise.allSettled([...publishing]);
      if (!handler) return;
      for (;;) {
        // A bus stopped for good has nothing more to hand over.
        if (closed || fatal) return;
        try {
          if (await consumerIdle()) return;
        } catch {
          // the broker is away: wait for it
        }
        await sleep(20);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      await Promise.allSettled([...publishing]);
      closed = true;
      messages?.stop();
      await Promise.race([loop, sleep(2_000)]);
      await nc.drain().catch(() => nc.close());
    },
    lastSeq: () => handled,
    compact: async () => undefined,
    connected: () => up && !nc.isClosed(),
  };
  return bus;
}

async function ensureStream(
  jsm: JetStreamManager,
  config: Pick<StreamConfig, 'name' | 'subjects'>,
  maxAgeMs: number,
): Promise<void> {
  const wanted: Partial<StreamConfig> = {
    ...config,
    max_age: nanos(maxAgeMs),
    storage: StorageType.File,
    duplicate_window: nanos(Math.min(maxAgeMs, 2 * 60_000)),
  };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, wanted);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
    await jsm.streams.add(wanted);
  }
}

/** A URL for messages: any user:password in it is replaced. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/g, '//***@');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
