import { readFileSync } from 'node:fs';
import type { UserInfo } from '../context.js';
import type { TokenAuthenticator } from './bearer.js';

/**
 * Splits CSV text into records as Go's encoding/csv reads them: comma-separated fields, double-quoted fields that
 * may hold commas and doubled quotes, blank lines skipped.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let fieldStarted = false;
  const endRecord = () => {
    if (fieldStarted || record.length > 0) {
      record.push(field);
      records.push(record);
    }
    record = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      fieldStarted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
    } else if (c === '\n') endRecord();
    else if (c === '\r' && text[i + 1] === '\n') continue;
    else {
      field += c;
      fieldStarted = true;
    }
  }
  endRecord();
  return records;
}

/**
 * Reads a --token-auth-file: one `token,user,uid[,"group1,group2"]` record a line, as upstream's tokenfile
 * authenticator. Fewer than three columns is an error (upstream's text); empty tokens are skipped; a duplicate
 * token keeps the later record.
 */
export function loadTokenFile(path: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  for (const record of parseCsv(readFileSync(path, 'utf8'))) {
    if (record.length < 3) {
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') continue;
    tokens.set(token, { name, ...(uid ? { uid } : {}), groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/** A static token given in memory rather than in a --token-auth-file: the same fields as a line of the file. */
export interface StaticToken {
  token: string;
  user: string;
  uid?: string;
  groups?: string[];
}

/**
 * The tokens of a --token-auth-file (when given) and the in-memory ones, in that order: a token in both keeps the
 * in-memory record, as a later line of the file wins over an earlier one. Empty tokens are skipped, as in the file.
 */
export function staticTokens(file: string | undefined, entries: readonly StaticToken[] = []): Map<string, UserInfo> {
  const tokens = file ? loadTokenFile(file) : new Map<string, UserInfo>();
  for (const e of entries) {
    if (e.token === '') continue;
    tokens.set(e.token, { name: e.user, ...(e.uid ? { uid: e.uid } : {}), groups: [...(e.groups ?? [])] });
  }
  return tokens;
}

/** Static tokens: a token in the file names its user; any other token is not this authenticator's. */
export function staticTokenAuthenticator(tokens: Map<string, UserInfo>): TokenAuthenticator {
  return (token) => {
    const user = tokens.get(token);
    return user ? { ...user, groups: [...user.groups] } : undefined;
  };
}
