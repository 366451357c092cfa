// Names of the ConfigMaps that carry a Build's and an Invocation's artifacts.
export const archiveName = (buildName: string): string => `${buildName}-archive`;
export const buildOutputName = (buildName: string): string => `${buildName}-output`;
export const bundleName = (buildName: string): string => `${buildName}-bundle`;
export const outcomeName = (invocationName: string): string => `${invocationName}-outcome`;
