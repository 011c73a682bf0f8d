/**
 * Structured logging: one line per event, with the component's name and a verbosity level like upstream's -v.
 */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Logs only when the logger's verbosity is at least level. */
  v(level: number): Pick<Logger, 'info'>;
  child(component: string): Logger;
}

export interface LoggerOptions {
  component: string;
  verbosity?: number;
  write?: (line: string) => void;
}

const quiet: Pick<Logger, 'info'> = { info: () => {} };

/**
 * Lines for stderr not written yet: the default writer gathers the lines of one turn of the event loop and writes
 * them together at its end, so that a burst of lines (a controller dropping events it cannot send) costs one write
 * to the file or pipe, not one each. Whatever is left is written when the process exits.
 */
let pendingLines: string[] = [];
let flushScheduled = false;
let flushAtExit = false;

/** Writes the gathered lines to stderr now. */
function flushLogs(): void {
  flushScheduled = false;
  if (pendingLines.length === 0) return;
  const text = pendingLines.join('');
  pendingLines = [];
  process.stderr.write(text);
}

function writeToStderr(line: string): void {
  pendingLines.push(`${line}\n`);
  if (flushScheduled) return;
  if (!flushAtExit) {
    flushAtExit = true;
    process.on('exit', flushLogs);
  }
  flushScheduled = true;
  setImmediate(flushLogs).unref();
}

export function createLogger(opts: LoggerOptions): Logger {
  const verbosity = opts.verbosity ?? 0;
  const write = opts.write ?? writeToStderr;
  const emit = (level: string, msg: string, fields?: LogFields) => {
    write(JSON.stringify({ ts: new Date().toISOString(), level, component: opts.component, msg, ...fields }));
  };
  const logger: Logger = {
    info: (msg, fields) => emit('info', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    v: (level) => (level <= verbosity ? { info: logger.info } : quiet),
    child: (component) => createLogger({ ...opts, component: `${opts.component}/${component}` }),
  };
  return logger;
}

/** A logger that drops everything, for tests and embedding. */
export const silentLogger: Logger = {
  info: () => {},
  error: () => {},
  v: () => quiet,
  child: () => silentLogger,
};
