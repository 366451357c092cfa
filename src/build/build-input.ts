// What the control plane hands a build pod (GET …/input).
export interface BuildInput {
  kind: 'build';
  buildId: string;
  /** Path of the entry file relative to the project root. */
  entrypoint: string;
}

export function parseBuildInput(value: unknown): BuildInput {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (record.kind !== 'build') throw new Error('pod input is not a build ({kind: "build", …})');
  if (typeof record.buildId !== 'string' || !record.buildId) throw new Error('invalid pod input: buildId must be a non-empty string');
  if (typeof record.entrypoint !== 'string') throw new Error('invalid pod input: entrypoint must be a string');
  return { kind: 'build', buildId: record.buildId, entrypoint: record.entrypoint };
}
