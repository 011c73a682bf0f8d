import { readFileSync } from 'node:fs';
import { Etcd3, type IRangeResponse, type IRequestOp, type ITxnResponse } from 'etcd3';
import { type Logger, silentLogger } from '../../util/logger.js';
import {
  type DeleteResult,
  errors,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type ReadOptions,
  type Store,
  toBytes,
  type Value,
  type Watch,
  type WatchListener,
  type WriteResult,
} from '../types.js';
import { ALL_FROM, EMPTY, rangeEnd, toKeyValue, toStorageError } from './codec.js';
import { EtcdWatch } from './watch.js';

export interface EtcdStoreOptions {
  /** Client URLs, as kube-apiserver's --etcd-servers takes them (http://127.0.0.1:2379,…). */
  servers: string[];
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** How long one request may take before it fails as Unavailable. */
  requestTimeoutMs?: number;
  logger?: Logger;
}

/**
 * The etcd backend: the contract mapped onto a real etcd v3 cluster through its gRPC API. Conditional writes are
 * transactions comparing a key's create or mod revision; watches are etcd watches with previous values, started
 * at afterRevision + 1 and resumed from the last delivered revision after a connection breaks.
 */
export class EtcdStore implements Store {
  readonly backend = 'etcd';
  readonly client: Etcd3;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly watches = new Set<EtcdWatch>();
  private closed = false;

  constructor(opts: EtcdStoreOptions) {
    if (opts.servers.length === 0) throw new Error('--etcd-servers needs at least one URL');
    this.log = opts.logger ?? silentLogger;
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    const hosts = opts.servers.map((s) => s.trim()).filter(Boolean);
    const tls = hosts.some((h) => h.startsWith('https://')) || opts.caFile !== undefined;
    this.client = new Etcd3({
      hosts,
      ...(tls
        ? {
            credentials: {
              rootCertificate: opts.caFile ? readFileSync(opts.caFile) : Buffer.alloc(0),
              ...(opts.keyFile ? { privateKey: readFileSync(opts.keyFile) } : {}),
              ...(opts.certFile ? { certChain: readFileSync(opts.certFile) } : {}),
            },
          }
        : {}),
      dialTimeout: 5_000,
      // A LIST of many objects is one response; like kube-apiserver, accept responses of any size etcd sends.
      grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
      defaultCallOptions: () => ({ deadline: Date.now() + this.timeoutMs }),
    });
  }

  async get(key: string, opts: ReadOptions = {}): Promise<KeyValue | null> {
    const res = await this.call(key, () =>
      this.client.kv.range({ key: Buffer.from(key), ...(opts.revision ? { revision: opts.revision } : {}) }),
    );
    const kv = res.kvs[0];
    return kv ? toKeyValue(kv) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const end = prefix === '' ? ALL_FROM : rangeEnd(Buffer.from(prefix));
    const res: IRangeResponse = await this.call(prefix, () =>
      this.client.kv.range({
        key: start === '' ? ALL_FROM : Buffer.from(start),
        range_end: end,
        ...(opts.revision ? { revision: opts.revision } : {}),
        ...(opts.limit && opts.limit > 0 ? { limit: opts.limit } : {}),
      }),
    );
    return {
      items: res.kvs.map(toKeyValue),
      revision: opts.revision ? opts.revision : Number(res.header.revision),
      more: res.more,
      // etcd counts every key of the range from its start, whatever the limit.
      ...(res.more && opts.countRemaining ? { remaining: Number(res.count) - res.kvs.length } : {}),
    };
  }

  async count(prefix: string): Promise<number> {
    const res = await this.call(prefix, () =>
      this.client.kv.range({
        key: prefix === '' ? ALL_FROM : Buffer.from(prefix),
        range_end: prefix === '' ? ALL_FROM : rangeEnd(Buffer.from(prefix)),
        count_only: true,
      }),
    );
    return Number(res.count);
  }

  async create(key: string, value: Value): Promise<WriteResult> {
    const k = Buffer.from(key);
    const res = await this.txn(key, {
      compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: k, value: toBytes(key, value) } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) {
      const current = res.responses[0]?.response_range?.kvs[0];
      throw errors.keyExists(key, current ? toKeyValue(current) : undefined);
    }
    return { revision: Number(res.header.revision) };
  }

  async update(key: string, value: Value, expectedRevision: number): Promise<WriteResult> {
    const k = Buffer.from(key);
    const res = await this.txn(key, {
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
      success: [{ request_put: { key: k, value: toBytes(key, value) } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) this.mismatch(key, expectedRevision, res);
    return { revision: Number(res.header.revision) };
  }

  async delete(key: string, expectedRevision: number): Promise<DeleteResult> {
    const k = Buffer.from(key);
    const res = await this.txn(key, {
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) this.mismatch(key, expectedRevision, res);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs?.[0];
    if (!prev) throw errors.notFound(key);
    return { revision: Number(res.header.revision), prevValue: prev.value ?? EMPTY };
  }

  watch(prefix: string, afterRevision: number, listener: WatchListener): Watch {
    const w = new EtcdWatch({
      client: this.client,
      prefix,
      afterRevision,
      log: this.log,
      listener: {
        onEvent: (e) => listener.onEvent(e),
        onError: (err) => {
          this.watches.delete(w);
          listener.onError(err);
        },
      },
    });
    if (this.closed) {
      queueMicrotask(() => listener.onError(errors.closed()));
      return { close: () => {} };
    }
    this.watches.add(w);
    w.start();
    return {
      close: () => {
        this.watches.delete(w);
        w.close();
      },
    };
  }

  async compact(revision: number): Promise<void> {
    await this.call(undefined, () => this.client.kv.compact({ revision, physical: true }));
  }

  async currentRevision(): Promise<number> {
    const res = await this.call(undefined, () => this.client.kv.range({ key: ALL_FROM, count_only: true }));
    return Number(res.header.revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.watches) w.fail(errors.closed());
    this.watches.clear();
    this.client.close();
  }

  private mismatch(key: string, expected: number, res: ITxnResponse): never {
    const current = res.responses[0]?.response_range?.kvs[0];
    if (!current) throw errors.notFound(key);
    throw errors.conflict(key, expected, toKeyValue(current));
  }

  private txn(
    key: string,
    req: {
      compare: NonNullable<Parameters<Etcd3['kv']['txn']>[0]['compare']>;
      success: IRequestOp[];
      failure: IRequestOp[];
    },
  ): Promise<ITxnResponse> {
    return this.call(key, () => this.client.kv.txn(req));
  }

  private async call<T>(key: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw errors.closed();
    try {
      return await fn();
    } catch (err) {
      throw toStorageError(err, key);
    }
  }
}
