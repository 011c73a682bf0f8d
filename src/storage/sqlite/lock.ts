import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** Paths this process holds open, so that a second store on one file in the same process is refused too. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a store file for this process, as etcd locks its data directory: watchers are told of writes only by the
 * process that makes them, so two processes serving one file would each miss the other's changes. A lock left by
 * a process that has died (SIGKILL, power loss) is taken over.
 */
export function lockStore(path: string): () => void {
  const lockPath = `${path}.lock`;
  if (held.has(lockPath)) throw new Error(`${path} is already open in this process`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(lockPath);
      return () => {
        held.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
        throw new Error(`${path} is in use by process ${owner} (another wheelhouse serving this data directory?)`);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`cannot lock ${path}`);
}
