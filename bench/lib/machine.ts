import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryMiB: number;
  node: string;
  /** The 1-minute load average when a suite started and when it ended. */
  loadAtStart: number;
  loadAtEnd?: number;
}

export const loadAverage = (): number => Math.round((loadavg()[0] ?? 0) * 100) / 100;

export function describeMachine(): Machine {
  return {
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    loadAtStart: loadAverage(),
  };
}
