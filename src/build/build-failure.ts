// A build that cannot succeed, with the cause code the Build's status carries.
export type BuildCauseCode =
  // the codes of the upstream API
  | 'NO_MANIFESTS_FOUND'
  | 'TOO_MANY_MANIFESTS'
  | 'MANIFEST_TOO_LARGE'
  | 'INVALID_SESSION_CREATE_PARAMS'
  | 'TIMED_OUT'
  // browserfn's own
  | 'INVALID_ARCHIVE'
  | 'ENTRYPOINT_NOT_FOUND'
  | 'DEPENDENCY_INSTALL_FAILED'
  | 'BUNDLE_FAILED'
  | 'BUNDLE_TOO_LARGE'
  | 'INTROSPECTION_FAILED'
  | 'DUPLICATE_FUNCTION_NAME'
  | 'INVALID_FUNCTION_NAME'
  | 'INVALID_PARAMETERS_SCHEMA'
  | 'INTERNAL_ERROR';

export class BuildFailure extends Error {
  constructor(
    readonly code: BuildCauseCode,
    message: string,
  ) {
    super(message);
  }
}
