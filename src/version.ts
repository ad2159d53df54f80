declare const __PRS_VERSION__: string;
export const VERSION = typeof __PRS_VERSION__ === 'string' ? __PRS_VERSION__ : '0.0.0-dev';
