import type { SettingValues } from '../settings.js';

export interface StoredSession {
  accessToken: string;
  expiresAt: number;
  refreshToken?: string;
  refreshExpiresAt?: number;
  obtainedAt?: number;
  bound?: SessionBinding;
}

/** A session is used only with the settings it was created with: never sent to another host or user. */
export interface SessionBinding {
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
  reset?(): Promise<{ movedTo?: string }>;
}
