/** Shapes of the credential store and the session, shared by the auth commands and the service. */
import type { SettingValues } from '../settings.js';

export interface StoredSession {
  accessToken: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number;
  refreshToken?: string;
  /** Epoch milliseconds when the refresh token expires (absent: unknown). */
  refreshExpiresAt?: number;
  /** Epoch milliseconds when the access token was issued: short-lived tokens get a smaller renewal margin. */
  obtainedAt?: number;
  /** Whom and where the session was created for (CLI.md "Session"); absent in stores of older versions. */
  bound?: SessionBinding;
}

/** A session is used only with the settings it was created with: never sent to another host or user. */
export interface SessionBinding {
  /** The user; absent for a service account, whose session is bound to its client id instead. */
  username?: string;
  /** Present for a service account's session (client_credentials); absent: a user's. */
  grant?: 'client_credentials';
  authUrl: string;
  realm: string;
  clientId: string;
  baseUrl?: string;
}

export interface ProfileData {
  settings: SettingValues;
  session?: StoredSession;
  /** The client secret is kept with the session by every login; the password only with --save-password. */
  secrets?: { password?: string; clientSecret?: string };
}

export interface Store {
  /** The config file's path (for messages and `prs config path`). */
  readonly path: string;
  profileNames(): string[];
  get(profile: string): ProfileData | undefined;
  /**
   * Read-modify-write of one profile under a cross-process lock, written atomically (0600).
   * Returning undefined deletes the profile.
   */
  update(
    profile: string,
    fn: (current: ProfileData | undefined) => ProfileData | undefined,
  ): Promise<ProfileData | undefined>;
  /**
   * Makes an unreadable (corrupt) file usable again by moving it aside to `<path>.corrupt`; a sound
   * file is left alone. Optional so in-memory test stores need not implement it.
   */
  reset?(): Promise<{ movedTo?: string }>;
}

export interface Session {
  /** A usable access token, per CLI.md "Session" steps 1–5; throws AuthError (exit 4) when none can be had. */
  token(): Promise<string>;
  /** After a 401 with `rejected`: one re-authentication (refresh, else password). Throws AuthError when impossible. */
  renew(rejected: string): Promise<string>;
  /** Who the limiter counts requests for: the user name, the service account's client id, or a token digest (PRS_TOKEN). */
  identity(): string;
}
