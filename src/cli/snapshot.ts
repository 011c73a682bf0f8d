import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sqlitePath } from '../storage/open.js';
import { inspectSnapshot, restoreSnapshot, saveSnapshot } from '../storage/sqlite/snapshot.js';
import { dataDirOf, UsageError } from './storage-flags.js';

export const snapshotHelp = `Usage:
  wheelhouse snapshot save FILE [--data-dir DIR]      copy the live sqlite store to FILE (writes may go on)
  wheelhouse snapshot restore FILE --data-dir DIR     make a new data directory from FILE
  wheelhouse snapshot status FILE                     show what FILE holds

For the etcd backend use etcd's own tool: ETCDCTL_API=3 etcdctl snapshot save FILE.`;

export async function snapshotCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [verb, file] = positionals;
  if (values.help || !verb) {
    out(snapshotHelp);
    return values.help ? 0 : 2;
  }
  if (!file) throw new UsageError(`wheelhouse snapshot ${verb} needs a FILE\n\n${snapshotHelp}`);
  const summary = (info: { revision: number; keys: number; compactRevision: number; sizeBytes: number }) =>
    `revision ${info.revision}, ${info.keys} keys, history from revision ${info.compactRevision}, ${info.sizeBytes} bytes`;
  switch (verb) {
    case 'save': {
      const info = saveSnapshot(sqlitePath(dataDirOf(values)), resolve(file));
      out(`Snapshot saved to ${resolve(file)}: ${summary(info)}`);
      return 0;
    }
    case 'restore': {
      if (!values['data-dir'])
        throw new UsageError('wheelhouse snapshot restore needs --data-dir DIR (a new directory)');
      const dir = dataDirOf(values);
      mkdirSync(dir, { recursive: true });
      const info = await restoreSnapshot(resolve(file), sqlitePath(dir));
      out(`Restored ${resolve(file)} into ${dir}: ${summary(info)}`);
      out(`Start it with: wheelhouse up --data-dir ${dir}`);
      return 0;
    }
    case 'status': {
      out(`${resolve(file)}: ${summary(inspectSnapshot(resolve(file)))}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown snapshot command ${JSON.stringify(verb)}\n\n${snapshotHelp}`);
  }
}
