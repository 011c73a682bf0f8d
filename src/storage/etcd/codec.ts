import type { IKeyValue } from 'etcd3';
import { type KeyValue, StorageError } from '../types.js';

export const EMPTY = Buffer.alloc(0);
/** etcd's range_end of "\0" means: every key from key onwards. */
export const ALL_FROM = Buffer.from([0]);

/** The end of the byte range of keys that start with prefix, as etcd's clients compute it. */
export function rangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return ALL_FROM;
}

/** Turns the errors the etcd client raises into the contract's. */
export function toStorageError(err: unknown, key?: string): StorageError {
  if (err instanceof StorageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const extra = { cause: err, ...(key === undefined ? {} : { key }) };
  if (message.includes('required revision has been compacted')) return new StorageError('Compacted', message, extra);
  if (message.includes('required revision is a future revision'))
    return new StorageError('FutureRevision', message, extra);
  if (message.includes('request is too large')) return new StorageError('TooLarge', message, extra);
  return new StorageError('Unavailable', `etcd: ${message}`, extra);
}

export function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value ?? EMPTY,
    modRevision: Number(kv.mod_revision),
    createRevision: Number(kv.create_revision),
  };
}
