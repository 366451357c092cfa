// Every route of the façade. Fixed paths come before parameterised ones that would shadow them.
import type { RouteDefinition } from '../route.js';
import buildsCreate from './functions/builds-create.js';
import buildsList from './functions/builds-list.js';
import buildsGet from './functions/builds-get.js';
import buildsLogs from './functions/builds-logs.js';
import invocationsList from './functions/invocations-list.js';
import invocationsGet from './functions/invocations-get.js';
import invocationsLogs from './functions/invocations-logs.js';
import invocationsCancel from './functions/invocations-cancel.js';
import versionsGet from './functions/versions-get.js';
import functionsList from './functions/functions-list.js';
import functionsGet from './functions/functions-get.js';
import functionsVersions from './functions/functions-versions.js';
import invoke from './functions/invoke.js';
import sessionsGet from './sessions/sessions-get.js';
import sessionsLogs from './sessions/sessions-logs.js';
import recordingGet from './sessions/recording-get.js';
import { recordingDownloadsList, recordingDownloadsCreate } from './sessions/recording-downloads.js';
import recordingDownloadFile from './sessions/recording-download-file.js';
import replaysList from './sessions/replays-list.js';
import replaysPage from './sessions/replays-page.js';
import replaysSegment from './sessions/replays-segment.js';
import podInput from './internal/pod-input.js';
import podArtifact from './internal/pod-artifact.js';
import podArtifactUpload from './internal/pod-artifact-upload.js';
import podReport from './internal/pod-report.js';
import podAssignment from './internal/pod-assignment.js';
import podRecordingUpload from './internal/pod-recording-upload.js';
import podSessionRecords from './internal/pod-session-records.js';

export const functionRoutes: RouteDefinition[] = [
  buildsCreate,
  buildsList,
  buildsGet,
  buildsLogs,
  invocationsList,
  invocationsGet,
  invocationsLogs,
  invocationsCancel,
  versionsGet,
  functionsList,
  functionsGet,
  functionsVersions,
  invoke,
  sessionsGet,
  sessionsLogs,
  recordingGet,
  recordingDownloadsList,
  recordingDownloadsCreate,
  recordingDownloadFile,
  replaysList,
  replaysPage,
  replaysSegment,
];

export const internalRoutes: RouteDefinition[] = [podInput, podAssignment, podArtifact, podArtifactUpload, podRecordingUpload, podReport, podSessionRecords];
