// Opens the artifact store the settings name.
import type { ArtifactStoreSettings } from '../config/settings.js';
import { FilesystemArtifactStore } from './filesystem.js';
import type { ArtifactStore } from './port.js';
import { S3ArtifactStore } from './s3.js';

export async function openArtifactStore(settings: ArtifactStoreSettings): Promise<ArtifactStore> {
  return settings.kind === 's3' ? new S3ArtifactStore(settings) : FilesystemArtifactStore.open(settings.dir);
}
