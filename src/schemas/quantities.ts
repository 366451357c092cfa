// Kubernetes quantities as pods take them: memory ("512Mi", "2G") as bytes and back, for pod limits
// and pool caps; CPU ("250m", "1", "0.5") as thousandths of a CPU, for a pod's CPU share.
const QUANTITY = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;
const FACTORS: Record<string, number> = { '': 1, m: 0.001, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

function quantityValue(quantity: string): number {
  const match = QUANTITY.exec(quantity);
  if (!match) throw new Error(`"${quantity}" is not a Kubernetes quantity`);
  return Number(match[1]) * FACTORS[match[2] ?? ''];
}

/** Bytes of a Kubernetes memory quantity ("512Mi", "2G"). */
export const memoryBytes = (quantity: string): number => quantityValue(quantity);

/** Thousandths of a CPU in a Kubernetes CPU quantity ("250m" is 250, "1" is 1000), rounded up as the kubelet rounds. */
export const cpuMillis = (quantity: string): number => Math.ceil(Math.round(quantityValue(quantity) * 1e6) / 1000);

/** A byte count as people read it in a message: "256 MiB", "2 GiB". */
export function describeBytes(bytes: number): string {
  const GiB = 1024 ** 3;
  const MiB = 1024 ** 2;
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
  return `${bytes} bytes`;
}
