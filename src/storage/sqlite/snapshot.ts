import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { countLiveKeys, hasSchema, readLastRevision, readMeta } from './schema.js';

export interface SnapshotInfo {
  /** The highest revision the snapshot holds. */
  revision: number;
  /** Revisions below this were compacted away before the snapshot was taken. */
  compactRevision: number;
  /** Keys that exist at that revision. */
  keys: number;
  sizeBytes: number;
}

function describe(db: Database.Database): Omit<SnapshotInfo, 'sizeBytes'> {
  return { revision: readLastRevision(db), compactRevision: readMeta(db, 'compact_revision'), keys: countLiveKeys(db) };
}

/**
 * Writes a consistent copy of a live sqlite store to file. It reads one snapshot of the database (a WAL read
 * transaction), so writers in this or another process carry on while it runs and none of them is half in the copy.
 */
export function saveSnapshot(dbPath: string, file: string): SnapshotInfo {
  if (!existsSync(dbPath)) throw new Error(`no sqlite store at ${dbPath}`);
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
  const db = new Database(dbPath, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (!hasSchema(db)) throw new Error(`${dbPath} is not a wheelhouse store`);
    db.prepare('VACUUM INTO ?').run(file);
  } finally {
    db.close();
  }
  return inspectSnapshot(file);
}

/** Reads what a snapshot file holds, checking that it is an intact wheelhouse store. */
export function inspectSnapshot(file: string): SnapshotInfo {
  if (!existsSync(file)) throw new Error(`no snapshot at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`${file} is damaged: ${String(check)}`);
    if (!hasSchema(db)) throw new Error(`${file} is not a wheelhouse snapshot`);
    const info = describe(db);
    const size = db
      .prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')
      .get() as {
      n: number;
    };
    return { ...info, sizeBytes: size.n };
  } finally {
    db.close();
  }
}

/**
 * Restores a snapshot as the store file dbPath, which must not exist yet: every key comes back with the revisions
 * it had. The copy is synced and renamed into place, so a crash leaves either no store or the whole one.
 */
export async function restoreSnapshot(file: string, dbPath: string): Promise<SnapshotInfo> {
  const info = inspectSnapshot(file);
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(dbPath + suffix)) {
      throw new Error(`${dbPath + suffix} already exists; restore into a new data directory`);
    }
  }
  const tmp = join(dirname(dbPath), `.${basename(dbPath)}.restoring`);
  rmSync(tmp, { force: true });
  await copyFile(file, tmp);
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, dbPath);
  const dirFd = openSync(dirname(dbPath), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return info;
}
