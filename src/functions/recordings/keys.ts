// Where a session's recording lives in the artifact store: `recordings/<project>/<session>/<file>`
// (file names from src/schemas/recording.ts). The archive sweep deletes them with the rest of the
// invocation's records once retention ends (docs/retention.md).
export const RECORDINGS_PREFIX = 'recordings/';

export const recordingPrefix = (project: string, sessionId: string): string => `${RECORDINGS_PREFIX}${project}/${sessionId.toLowerCase()}/`;
export const recordingKey = (project: string, sessionId: string, file: string): string => `${recordingPrefix(project, sessionId)}${file}`;
