/** The answer cache's entries written and read whole, for the unit tests. */
import { type AnswerKey, type CachedAnswer, type CacheStore, entryChunks } from '../../src/cache/store.js';

export const entryBody = (a: CachedAnswer): Buffer => Buffer.concat([...entryChunks(a)]);

export function putEntry(store: CacheStore, profile: string, k: AnswerKey, body: Buffer): void {
  const w = store.writer(profile, k);
  w.write(body);
  w.commit();
}
