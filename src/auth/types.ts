import type { SettingValues } from '../settings.js';

export interface StoredSession {
  accessToken: string;
  /** Epoch ms, as the other times. */
  expiresAt: number;
  refreshToken?: string;
  refreshExpiresAt?: number;
  obtainedAt?: number;
  /** Absent in stores of older versions. */
  bound?: SessionBinding;
}

/** A session is used only with the settings it was created with: never sent to another host or user. */
export interface SessionBinding {
  /** Absent for a service account (grant client_credentials), bound to its client id. */
  username?: string;
  grant?: 'client_credentials';
  authUrl: string;
  realm: string;
  clientId: string;
  baseUrl?: string;
}

export interface ProfileData {
  settings: SettingValues;
  session?: StoredSession;
  secrets?: { password?: string; clientSecret?: string };
}

export interface Store {
  readonly path: string;
  profileNames(): string[];
  get(profile: string): ProfileData | undefined;
  /** Read-modify-write of one profile under a lock; `fn` returning undefined deletes it. */
  update(profile: string, fn: (current: ProfileData | undefined) => ProfileData | undefined): Promise<void>;
  /** Moves a corrupt file aside to `<path>.corrupt`; a sound file is left alone. */
  reset?(): Promise<{ movedTo?: string }>;
}

export interface Session {
  /** CLI.md "Session" steps 1–5, else AuthError. */
  token(): Promise<string>;
  /** After a 401 with `rejected`: one re-authentication, else AuthError. */
  renew(rejected: string): Promise<string>;
}
