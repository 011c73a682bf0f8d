/**
 * The audit log file (--audit-log-path): one line per event, appended synchronously so events are in order and
 * survive a crash. kube-apiserver always writes through lumberjack (gopkg.in/natefinch/lumberjack.v2), and so does
 * this file: past --audit-log-maxsize megabytes (0, the default, means lumberjack's 100) the file is renamed to
 * `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` beside it and a new one started; then, in the background, backups
 * beyond --audit-log-maxbackup or older than --audit-log-maxage days are removed and, with --audit-log-compress, the
 * others gzipped to `<backup>.gz`. `-` writes to standard output, never rotated.
 */
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface LogFileOptions {
  path: string;
  /** Megabytes before rotation; 0 (default): lumberjack's default of 100. */
  maxSize?: number;
  /** Backups kept; 0 (default): all. */
  maxBackups?: number;
  /** Days a backup is kept; 0 (default): forever. */
  maxAge?: number;
  /** gzip rotated files (--audit-log-compress). */
  compress?: boolean;
  /** The clock (tests). */
  now?: () => Date;
}

const MEGABYTE = 1024 * 1024;
/** lumberjack's defaultMaxSize, in megabytes. */
export const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
const COMPRESS_SUFFIX = '.gz';
const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

/** lumberjack's backup time stamp: 2006-01-02T15-04-05.000, UTC. */
export function backupTimestamp(t: Date): string {
  return t.toISOString().slice(0, 23).replace(/:/g, '-');
}

/** The time a backup's stamp names (UTC), or undefined when it is not one. */
function parseBackupTimestamp(stamp: string): number | undefined {
  const m = BACKUP_TIME.exec(stamp);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  const t = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s, ms);
  const back = new Date(t);
  // Go's time.Parse refuses out-of-range fields (a 13th month, a 32nd day) rather than rolling them over.
  if (back.getUTCMonth() !== (mo as number) - 1 || back.getUTCDate() !== d || (h as number) > 23) return undefined;
  if ((mi as number) > 59 || (s as number) > 59) return undefined;
  return t;
}

interface Backup {
  name: string;
  time: number;
}

export class AuditLogFile {
  private fd: number | undefined;
  private size = 0;
  /** The file was opened as found: the first write rotates it if it would reach the limit (openExistingOrNew). */
  private reopened = true;
  private readonly now: () => Date;
  private milling: Promise<void> = Promise.resolve();
  private millQueued = false;

  constructor(private readonly opts: LogFileOptions) {
    this.now = opts.now ?? (() => new Date());
    if (opts.path === '-') return;
    // As kube-apiserver's ensureLogFile: the directory and the file exist from the start.
    mkdirSync(dirname(opts.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(opts.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private max(): number {
    const mb = this.opts.maxSize ?? 0;
    return (mb > 0 ? mb : DEFAULT_MAX_SIZE_MB) * MEGABYTE;
  }

  /** Appends a line (a whole event); one longer than the limit is refused, as lumberjack refuses it. */
  write(line: string): boolean {
    if (this.opts.path === '-') {
      process.stdout.write(line);
      return true;
    }
    const bytes = Buffer.byteLength(line);
    const max = this.max();
    if (bytes > max) return false;
    if (this.reopened) {
      this.reopened = false;
      this.mill();
      if (this.size + bytes >= max) this.rotate();
    } else if (this.size + bytes > max) {
      this.rotate();
    }
    if (this.fd === undefined) this.openNew();
    writeSync(this.fd as number, line);
    this.size += bytes;
    return true;
  }

  private openNew(): void {
    const path = this.opts.path;
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    let mode = 0o600;
    try {
      mode = statSync(path).mode & 0o777;
      const ext = extname(path);
      renameSync(path, join(dirname(path), `${basename(path, ext)}-${backupTimestamp(this.now())}${ext}`));
    } catch {
      // No file to move aside.
    }
    this.fd = openSync(path, 'w', mode);
    this.size = 0;
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.openNew();
    this.mill();
  }

  /** The backups beside the log, newest first (compressed ones included). */
  backups(): string[] {
    return this.oldLogFiles().map((b) => join(dirname(this.opts.path), b.name));
  }

  private oldLogFiles(): Backup[] {
    const path = this.opts.path;
    const ext = extname(path);
    const prefix = `${basename(path, ext)}-`;
    const out: Backup[] = [];
    for (const name of readdirSync(dirname(path))) {
      if (!name.startsWith(prefix)) continue;
      for (const suffix of [ext, ext + COMPRESS_SUFFIX]) {
        if (!name.endsWith(suffix) || name.length < prefix.length + suffix.length) continue;
        const time = parseBackupTimestamp(name.slice(prefix.length, name.length - suffix.length));
        if (time !== undefined) {
          out.push({ name, time });
          break;
        }
      }
    }
    return out.sort((a, b) => b.time - a.time);
  }

  /** Starts a clean-up in the background, one at a time (lumberjack's mill goroutine). */
  private mill(): void {
    if (this.millQueued) return;
    this.millQueued = true;
    this.milling = this.milling.then(async () => {
      this.millQueued = false;
      try {
        await this.millRunOnce();
      } catch {
        // As lumberjack's: a failed clean-up is tried again after the next rotation.
      }
    });
  }

  /** Resolves once the background clean-ups asked for so far are done (tests). */
  settled(): Promise<void> {
    return this.milling;
  }

  private async millRunOnce(): Promise<void> {
    const maxBackups = this.opts.maxBackups ?? 0;
    const maxAge = this.opts.maxAge ?? 0;
    if (maxBackups === 0 && maxAge === 0 && !this.opts.compress) return;
    let files = this.oldLogFiles();
    const remove: Backup[] = [];
    if (maxBackups > 0 && maxBackups < files.length) {
      // A backup and its compressed copy count once.
      const preserved = new Set<string>();
      const remaining: Backup[] = [];
      for (const f of files) {
        preserved.add(f.name.endsWith(COMPRESS_SUFFIX) ? f.name.slice(0, -COMPRESS_SUFFIX.length) : f.name);
        if (preserved.size > maxBackups) remove.push(f);
        else remaining.push(f);
      }
      files = remaining;
    }
    if (maxAge > 0) {
      const cutoff = this.now().getTime() - maxAge * DAY_MS;
      const remaining: Backup[] = [];
      for (const f of files) (f.time < cutoff ? remove : remaining).push(f);
      files = remaining;
    }
    const compress = this.opts.compress ? files.filter((f) => !f.name.endsWith(COMPRESS_SUFFIX)) : [];
    const dir = dirname(this.opts.path);
    for (const f of remove) {
      try {
        unlinkSync(join(dir, f.name));
      } catch {
        // Already gone.
      }
    }
    for (const f of compress) await compressLogFile(join(dir, f.name));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** gzips a rotated file to `<file>.gz` with the same mode, then removes it; a failed copy is removed instead. */
async function compressLogFile(src: string): Promise<void> {
  const dst = src + COMPRESS_SUFFIX;
  const mode = statSync(src).mode & 0o777;
  try {
    await pipeline(createReadStream(src), createGzip(), createWriteStream(dst, { mode }));
  } catch (err) {
    try {
      unlinkSync(dst);
    } catch {
      // Nothing was written.
    }
    throw err;
  }
  unlinkSync(src);
}
