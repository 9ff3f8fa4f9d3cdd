import type { LockedImage, LockedOutput } from '../../model/index.js';

/** The files and the lock of one project folder; every path is relative to it (and checked by the store). */
export interface ImageStore {
  read(path: string): Promise<Uint8Array>;
  /** Writes each file atomically (a reader never sees half a file). */
  write(files: Array<{ path: string; bytes: Uint8Array }>): Promise<void>;
  /**
   * Deletes the files, each only if it is still as the plan saw it (in the project, no link,
   * the recorded bytes; one already gone is fine): otherwise none, and the answer says why.
   */
  remove(files: LockedOutput[]): Promise<string | undefined>;
  /** Records one image's lock entry, or removes it (null); called after each success. */
  record(name: string, entry: LockedImage | null): Promise<void>;
}
