// The wall clock.
import type { Clock } from '@agent-tasks/core';

export const systemClock: Clock = { now: () => new Date() };
