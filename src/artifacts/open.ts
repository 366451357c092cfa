// Opens the artifact store the settings name. The S3 backend (and the AWS SDK under it) is loaded
// only when configured, so `serve` with the filesystem backend never loads the SDK.
import type { ArtifactStoreSettings } from '../config/settings.js';
import { FilesystemArtifactStore } from './filesystem.js';
import type { ArtifactStore } from './port.js';

export async function openArtifactStore(settings: ArtifactStoreSettings): Promise<ArtifactStore> {
  if (settings.kind === 'filesystem') return FilesystemArtifactStore.open(settings.dir);
  const { S3ArtifactStore } = await import('./s3.js');
  return new S3ArtifactStore(settings);
}
