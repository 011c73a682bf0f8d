/**
 * The commands `kubectl exec` can run in a simulated container, with no processes behind them: echo, env,
 * printenv, cat and ls of the mounted ConfigMap/Secret files, hostname, pwd, true, false, sleep, whoami, id,
 * uname, and `sh -c '<script>'` (or an interactive `sh` on stdin) with a tiny shell: `;`, `&&`, `||`, quotes,
 * `$VAR`/`${VAR}`/`$?`, assignments, export, cd, exit and the redirections `>&2`, `2>&1`, `>/dev/null` and
 * `< file` (pipes and command substitution are refused). Anything else fails with exit code 127 and
 * `sh: <name>: not found`, as a shell says.
 */
import { normalizePath, type PodFiles } from './pod-files.js';
import type { ExecIO } from './types.js';

export interface CommandContext {
  env: Map<string, string>;
  files: PodFiles;
  io: ExecIO;
  cwd: string;
}

type Part = { kind: 'lit'; text: string } | { kind: 'var'; name: string };
type Word = Part[];
type Operator = ';' | '&&' | '||';
interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&';
  /** The file (for >, >> and <), or the descriptor duplicated (for >&). */
  target: Word | number;
}
interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
}
type Token =
  | { type: 'word'; word: Word }
  | { type: 'op'; op: Operator }
  | { type: 'redir'; fd: number; op: '>' | '>>' | '<'; dup?: undefined }
  | { type: 'redir'; fd: number; op: '>&'; dup: number }
  | { type: 'unsupported'; text: string };

/** Raised to stop a script (the `exit` builtin). */
class ExitSignal {
  constructor(readonly code: number) {}
}

export class ShellSyntaxError extends Error {}

/** Splits a script into words and operators, keeping quoting so expansion can happen when each command runs. */
export function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let word: Word | undefined;
  let lit = '';
  const flushLit = () => {
    if (lit) {
      word ??= [];
      word.push({ kind: 'lit', text: lit });
      lit = '';
    }
  };
  const endWord = () => {
    flushLit();
    if (word) tokens.push({ type: 'word', word });
    word = undefined;
  };
  const startWord = () => {
    word ??= [];
  };
  const readVar = (i: number): [Part | undefined, number] => {
    // script[i] === '$'
    const next = script[i + 1];
    if (next === '{') {
      const end = script.indexOf('}', i + 2);
      if (end < 0) throw new ShellSyntaxError('Bad substitution');
      return [{ kind: 'var', name: script.slice(i + 2, end) }, end + 1];
    }
    if (next === '?' || next === '$' || next === '#' || (next !== undefined && /[0-9]/.test(next))) {
      return [{ kind: 'var', name: next }, i + 2];
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(script.slice(i + 1));
    if (!m) return [undefined, i + 1];
    return [{ kind: 'var', name: m[0] }, i + 1 + m[0].length];
  };
  let i = 0;
  while (i < script.length) {
    const c = script[i] as string;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n' || c === ';') {
      endWord();
      tokens.push({ type: 'op', op: ';' });
      i++;
    } else if (c === '&' && script[i + 1] === '&') {
      endWord();
      tokens.push({ type: 'op', op: '&&' });
      i += 2;
    } else if (c === '|' && script[i + 1] === '|') {
      endWord();
      tokens.push({ type: 'op', op: '||' });
      i += 2;
    } else if (c === '#' && word === undefined && !lit) {
      const nl = script.indexOf('\n', i);
      i = nl < 0 ? script.length : nl;
    } else if (c === '>' || c === '<') {
      // An fd number written right before the operator (2>, 1>&2) belongs to it.
      let fd = c === '<' ? 0 : 1;
      if ((word === undefined || word.length === 0) && /^[0-9]$/.test(lit)) {
        fd = Number(lit);
        lit = '';
        word = undefined;
      }
      endWord();
      if (c === '<') {
        tokens.push({ type: 'redir', fd, op: '<' });
        i++;
      } else if (script[i + 1] === '>') {
        tokens.push({ type: 'redir', fd, op: '>>' });
        i += 2;
      } else if (script[i + 1] === '&') {
        const m = /^[0-9]/.exec(script.slice(i + 2));
        if (!m) throw new ShellSyntaxError('Bad fd number');
        tokens.push({ type: 'redir', fd, op: '>&', dup: Number(m[0]) });
        i += 3;
      } else {
        tokens.push({ type: 'redir', fd, op: '>' });
        i++;
      }
    } else if ('|&()`'.includes(c) || (c === '$' && script[i + 1] === '(')) {
      endWord();
      tokens.push({ type: 'unsupported', text: c === '$' ? '$(' : c });
      i += c === '$' ? 2 : 1;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('Unterminated quoted string');
      startWord();
      lit += script.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      startWord();
      i++;
      while (i < script.length && script[i] !== '"') {
        const d = script[i] as string;
        if (d === '\\' && i + 1 < script.length && '"\\$`\n'.includes(script[i + 1] as string)) {
          if (script[i + 1] !== '\n') lit += script[i + 1];
          i += 2;
        } else if (d === '$') {
          const [part, next] = readVar(i);
          if (part) {
            flushLit();
            startWord();
            word?.push(part);
          } else lit += '$';
          i = next;
        } else {
          lit += d;
          i++;
        }
      }
      if (i >= script.length) throw new ShellSyntaxError('Unterminated quoted string');
      i++;
    } else if (c === '\\') {
      startWord();
      if (script[i + 1] !== '\n') lit += script[i + 1] ?? '';
      i += 2;
    } else if (c === '$') {
      const [part, next] = readVar(i);
      startWord();
      if (part) {
        flushLit();
        word?.push(part);
      } else lit += '$';
      i = next;
    } else {
      startWord();
      lit += c;
      i++;
    }
  }
  endWord();
  return tokens;
}

function expandWord(word: Word, vars: (name: string) => string): string {
  return word.map((p) => (p.kind === 'lit' ? p.text : vars(p.name))).join('');
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Runs a script in the simulated shell; resolves to its exit status. */
export async function runScript(script: string, ctx: CommandContext, args: string[] = []): Promise<number> {
  return (await new Shell(ctx, args).run(script)).status;
}

/** One shell: its variables live in ctx.env, its last status in `$?`. */
class Shell {
  private status = 0;

  constructor(
    private readonly ctx: CommandContext,
    private readonly args: string[] = [],
  ) {}

  private finish(status: number, exited: boolean): { status: number; exited: boolean } {
    this.status = status;
    return { status, exited };
  }

  /** Runs a script; `exited` tells whether it ran the exit builtin. */
  async run(script: string): Promise<{ status: number; exited: boolean }> {
    const { ctx } = this;
    let tokens: Token[];
    try {
      tokens = tokenize(script);
    } catch (err) {
      ctx.io.stderr(`sh: 1: Syntax error: ${(err as Error).message}\n`);
      return this.finish(2, false);
    }
    const bad = tokens.find((t) => t.type === 'unsupported');
    if (bad && bad.type === 'unsupported') {
      ctx.io.stderr(`sh: 1: "${bad.text}" is not supported by the simulated shell\n`);
      return this.finish(2, false);
    }
    // Group into simple commands joined by operators.
    const sequence: { cmd: SimpleCommand; op: Operator }[] = [];
    let current: SimpleCommand = { words: [], redirects: [] };
    let pending: Token | undefined;
    for (const t of tokens) {
      if (pending?.type === 'redir' && pending.op !== '>&') {
        if (t.type !== 'word') {
          ctx.io.stderr('sh: 1: Syntax error: redirection unexpected\n');
          return this.finish(2, false);
        }
        current.redirects.push({ fd: pending.fd, op: pending.op, target: t.word });
        pending = undefined;
        continue;
      }
      if (t.type === 'redir') {
        if (t.op === '>&') current.redirects.push({ fd: t.fd, op: '>&', target: t.dup });
        else pending = t;
      } else if (t.type === 'word') current.words.push(t.word);
      else if (t.type === 'op') {
        if (current.words.length === 0 && current.redirects.length === 0) {
          if (t.op === ';') continue;
          ctx.io.stderr(`sh: 1: Syntax error: "${t.op}" unexpected\n`);
          return this.finish(2, false);
        }
        sequence.push({ cmd: current, op: t.op });
        current = { words: [], redirects: [] };
      }
    }
    if (pending) {
      ctx.io.stderr('sh: 1: Syntax error: newline unexpected\n');
      return this.finish(2, false);
    }
    if (current.words.length > 0 || current.redirects.length > 0) sequence.push({ cmd: current, op: ';' });
    const vars = (name: string): string => {
      if (name === '?') return String(this.status);
      if (name === '$') return '1';
      if (name === '#') return String(Math.max(0, this.args.length - 1));
      if (/^[0-9]$/.test(name)) return this.args[Number(name)] ?? (name === '0' ? 'sh' : '');
      return ctx.env.get(name) ?? '';
    };
    let skip: Operator | undefined;
    try {
      for (const { cmd, op } of sequence) {
        if (ctx.io.signal.aborted) return { status: 130, exited: true };
        const run = skip === undefined || (skip === '&&' ? this.status === 0 : this.status !== 0);
        if (run) {
          const io = redirected(cmd.redirects, ctx, (w) => expandWord(w, vars));
          if (typeof io === 'number') this.status = io;
          else {
            const sub = { ...ctx, io };
            this.status = await runSimple(
              cmd.words.map((w) => expandWord(w, vars)),
              sub,
            );
            ctx.cwd = sub.cwd;
          }
        }
        skip = op === ';' ? undefined : op;
      }
    } catch (err) {
      if (err instanceof ExitSignal) return this.finish(err.code, true);
      throw err;
    }
    return { status: this.status, exited: false };
  }
}

/**
 * The streams of a command after its redirections: stdout/stderr to /dev/null or to each other, stdin from a
 * file. The file system is read-only, so writing to any other file fails as it would there. A number is the
 * status of a redirection that failed.
 */
function redirected(redirects: Redirect[], ctx: CommandContext, expand: (w: Word) => string): ExecIO | number {
  if (redirects.length === 0) return ctx.io;
  const base = ctx.io;
  const sink = () => {};
  const out: Record<number, (d: string | Buffer) => void> = { 1: base.stdout, 2: base.stderr };
  let stdin = base.stdin;
  for (const r of redirects) {
    if (r.op === '>&') {
      const target = out[r.target as number];
      if (!target) {
        base.stderr(`sh: 1: ${r.target}: Bad file descriptor\n`);
        return 2;
      }
      out[r.fd] = target;
      continue;
    }
    const path = expand(r.target as Word);
    if (r.op === '<') {
      const content = ctx.files.read(normalizePath(path, ctx.cwd));
      if (content === undefined) {
        base.stderr(`sh: 1: cannot open ${path}: No such file\n`);
        return 2;
      }
      stdin = (async function* () {
        yield content;
      })();
      continue;
    }
    if (path === '/dev/null') out[r.fd] = sink;
    else if (path === '/dev/stdout') out[r.fd] = base.stdout;
    else if (path === '/dev/stderr') out[r.fd] = base.stderr;
    else {
      base.stderr(`sh: 1: cannot create ${path}: Read-only file system\n`);
      return 2;
    }
  }
  return { ...base, stdin, stdout: out[1] ?? sink, stderr: out[2] ?? sink };
}

async function runSimple(words: string[], ctx: CommandContext): Promise<number> {
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i] as string)) {
    const w = words[i] as string;
    const eq = w.indexOf('=');
    ctx.env.set(w.slice(0, eq), w.slice(eq + 1));
    i++;
  }
  const argv = words.slice(i);
  if (argv.length === 0) return 0;
  const [name, ...args] = argv as [string, ...string[]];
  switch (name) {
    case 'exit': {
      const code = args[0] === undefined ? 0 : Number.parseInt(args[0], 10);
      if (Number.isNaN(code)) {
        ctx.io.stderr(`sh: 1: exit: Illegal number: ${args[0]}\n`);
        throw new ExitSignal(2);
      }
      throw new ExitSignal(((code % 256) + 256) % 256);
    }
    case 'export':
      for (const a of args) {
        const eq = a.indexOf('=');
        if (eq > 0) ctx.env.set(a.slice(0, eq), a.slice(eq + 1));
      }
      return 0;
    case 'unset':
      for (const a of args) ctx.env.delete(a);
      return 0;
    case 'cd': {
      const target = normalizePath(args[0] ?? ctx.env.get('HOME') ?? '/', ctx.cwd);
      if (!ctx.files.isDir(target)) {
        ctx.io.stderr(`sh: 1: cd: can't cd to ${args[0]}\n`);
        return 2;
      }
      ctx.cwd = target;
      return 0;
    }
    case ':':
      return 0;
    default:
      return runCommand(argv, ctx);
  }
}

/** Runs one command (argv[0] and its arguments) of the built-in set; resolves to its exit code. */
export async function runCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [name = '', ...args] = argv;
  const base = name.slice(name.lastIndexOf('/') + 1);
  const { io } = ctx;
  switch (base) {
    case 'echo': {
      let newline = true;
      let rest = args;
      if (rest[0] === '-n') {
        newline = false;
        rest = rest.slice(1);
      }
      io.stdout(`${rest.join(' ')}${newline ? '\n' : ''}`);
      return 0;
    }
    case 'true':
      return 0;
    case 'false':
      return 1;
    case 'env':
      if (args.length > 0) return runCommand(args, ctx);
      io.stdout([...ctx.env].map(([k, v]) => `${k}=${v}\n`).join(''));
      return 0;
    case 'printenv': {
      if (args.length === 0) {
        io.stdout([...ctx.env].map(([k, v]) => `${k}=${v}\n`).join(''));
        return 0;
      }
      let code = 0;
      for (const a of args) {
        const v = ctx.env.get(a);
        if (v === undefined) code = 1;
        else io.stdout(`${v}\n`);
      }
      return code;
    }
    case 'hostname':
      io.stdout(`${ctx.env.get('HOSTNAME') ?? ''}\n`);
      return 0;
    case 'pwd':
      io.stdout(`${ctx.cwd}\n`);
      return 0;
    case 'whoami':
      io.stdout('root\n');
      return 0;
    case 'id':
      io.stdout('uid=0(root) gid=0(root) groups=0(root)\n');
      return 0;
    case 'uname':
      io.stdout(
        args.includes('-a') ? `Linux ${ctx.env.get('HOSTNAME') ?? ''} 6.1.0 #1 SMP x86_64 GNU/Linux\n` : 'Linux\n',
      );
      return 0;
    case 'sleep':
      return sleep(args[0], ctx);
    case 'cat':
      return cat(args, ctx);
    case 'ls':
      return ls(args, ctx);
    case 'sh':
    case 'bash':
    case 'ash':
    case 'dash': {
      if (args[0] === '-c') {
        if (args[1] === undefined) {
          io.stderr(`${base}: 0: -c requires an argument\n`);
          return 2;
        }
        return runScript(args[1], ctx, args.slice(2));
      }
      return interactiveShell(ctx);
    }
    default:
      io.stderr(`sh: ${name}: not found\n`);
      return 127;
  }
}

async function sleep(arg: string | undefined, ctx: CommandContext): Promise<number> {
  const seconds = Number(arg);
  if (arg === undefined || !Number.isFinite(seconds) || seconds < 0) {
    ctx.io.stderr(`sleep: invalid time interval '${arg ?? ''}'\n`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, seconds * 1000);
    ctx.io.signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
  return 0;
}

async function cat(args: string[], ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  const paths = args.filter((a) => a !== '-u');
  if (paths.length === 0 || (paths.length === 1 && paths[0] === '-')) {
    if (io.stdin) for await (const chunk of io.stdin) io.stdout(chunk);
    return 0;
  }
  let code = 0;
  for (const p of paths) {
    const full = normalizePath(p, ctx.cwd);
    const content = ctx.files.read(full);
    if (content !== undefined) io.stdout(content);
    else if (ctx.files.isDir(full)) {
      io.stderr(`cat: ${p}: Is a directory\n`);
      code = 1;
    } else {
      io.stderr(`cat: ${p}: No such file or directory\n`);
      code = 1;
    }
  }
  return code;
}

function ls(args: string[], ctx: CommandContext): number {
  const { io } = ctx;
  const flags = new Set<string>();
  const paths: string[] = [];
  for (const a of args) {
    if (a.startsWith('-') && a.length > 1) for (const f of a.slice(1)) flags.add(f);
    else paths.push(a);
  }
  const all = flags.has('a');
  const onePerLine = flags.has('1') || flags.has('l') || !io.tty;
  const targets = paths.length > 0 ? paths : ['.'];
  let code = 0;
  const fileOut: string[] = [];
  const dirOut: { path: string; names: string[] }[] = [];
  for (const p of targets) {
    const full = normalizePath(p, ctx.cwd);
    if (ctx.files.read(full) !== undefined) fileOut.push(p);
    else {
      const names = ctx.files.list(full);
      if (names === undefined) {
        io.stderr(`ls: cannot access '${p}': No such file or directory\n`);
        code = 2;
      } else dirOut.push({ path: p, names: all ? ['.', '..', ...names] : names.filter((n) => !n.startsWith('.')) });
    }
  }
  const show = (names: string[]) => {
    if (names.length === 0) return;
    io.stdout(onePerLine ? names.map((n) => `${n}\n`).join('') : `${names.join('  ')}\n`);
  };
  show(fileOut);
  const headers = fileOut.length + dirOut.length > 1;
  dirOut.forEach((d, i) => {
    if (headers) io.stdout(`${i > 0 || fileOut.length > 0 ? '\n' : ''}${d.path}:\n`);
    show(d.names);
  });
  return code;
}

/**
 * `sh` with no -c: reads commands from stdin, one per line, until exit or end of input. On a terminal (kubectl
 * exec -it) it prompts, echoes what is typed and handles backspace, Ctrl-C and Ctrl-D itself, as a terminal does.
 */
export async function interactiveShell(ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  if (!io.stdin) return 0;
  const shell = new Shell(ctx);
  let status = 0;
  let line = '';
  const prompt = () => {
    if (io.tty) io.stdout('# ');
  };
  /** Runs one line; true when it ran exit. */
  const execute = async (text: string): Promise<boolean> => {
    if (!text.trim()) return false;
    const result = await shell.run(text);
    status = result.status;
    return result.exited;
  };
  prompt();
  for await (const chunk of io.stdin) {
    for (const ch of chunk.toString('utf8')) {
      if (!io.tty) {
        if (ch !== '\n') line += ch;
        else {
          if (await execute(line)) return status;
          line = '';
        }
      } else if (ch === '\r' || ch === '\n') {
        io.stdout('\n');
        if (await execute(line)) return status;
        line = '';
        prompt();
      } else if (ch === '\x7f' || ch === '\b') {
        if (line.length > 0) {
          line = line.slice(0, -1);
          io.stdout('\b \b');
        }
      } else if (ch === '\x03') {
        line = '';
        io.stdout('^C\n');
        prompt();
      } else if (ch === '\x04') {
        if (line === '') {
          io.stdout('\n');
          return status;
        }
      } else if (ch >= ' ' || ch === '\t') {
        line += ch;
        io.stdout(ch);
      }
    }
  }
  if (line) await execute(line);
  return status;
}
