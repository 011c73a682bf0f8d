import type Database from 'better-sqlite3';

/**
 * The sqlite backend's on-disk layout: one append-only log table whose row id is the revision. A row is a create,
 * an update or a deletion (a tombstone) of one key; prev_revision names the row it replaces, and the unique index on
 * (name, prev_revision) is the compare-and-swap: two writes can never both replace the same row. Within a key,
 * prev_revision grows with the row id (each row replaces the one before it), so that index also finds a key's
 * newest row, and its newest at a revision (the row id is in every index entry). Stores made before 12-06 also had an
 * index on (name, id) for those lookups; it is dropped on open, as every write paid for keeping it.
 */
export const SCHEMA_VERSION = 1;

export function createSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS kv (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      deleted INTEGER NOT NULL,
      create_revision INTEGER NOT NULL,
      prev_revision INTEGER NOT NULL,
      value BLOB
    );
    CREATE UNIQUE INDEX IF NOT EXISTS kv_name_prev_revision ON kv (name, prev_revision);
    DROP INDEX IF EXISTS kv_name_id;
    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('compact_revision', 0);
  `);
}

/** True when db holds a wheelhouse store. */
export function hasSchema(db: Database.Database): boolean {
  const row = db
    .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('kv', 'meta')")
    .get() as {
    n: number;
  };
  return row.n === 2;
}

export function readMeta(db: Database.Database, name: 'schema_version' | 'compact_revision'): number {
  const row = db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: number } | undefined;
  return row?.value ?? 0;
}

/** The highest revision ever written (kept by AUTOINCREMENT even when compaction removes that row). */
export function readLastRevision(db: Database.Database): number {
  const row = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'").get() as { seq: number } | undefined;
  return row?.seq ?? 0;
}

/** Counts the keys that exist at the latest revision. */
export function countLiveKeys(db: Database.Database): number {
  const row = db
    .prepare(
      'SELECT count(*) AS n FROM kv JOIN (SELECT max(id) AS id FROM kv GROUP BY name) AS latest ON kv.id = latest.id WHERE kv.deleted = 0',
    )
    .get() as { n: number };
  return row.n;
}
