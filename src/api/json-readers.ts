/**
 * Readers for decoded JSON that may be missing or of the wrong type (objects as clients sent them): each returns a
 * safe empty value instead of throwing.
 */

export type Rec = Record<string, unknown>;

/** The object at v, or a fresh empty one. */
export const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

/** The array at v, or an empty one. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The objects of the array at v; entries that are not objects become empty objects. */
export const recs = (v: unknown): Rec[] => arr(v).map(rec);

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
