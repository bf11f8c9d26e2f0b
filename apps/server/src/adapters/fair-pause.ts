// The `pause` port for long work done in slices (large imports): one waiting slice resumes per turn of the event
// loop, whoever asked, so several imports at once hold the loop no longer between I/O than one does.

/** A pause shared by every caller: waiters resume one per event-loop turn, first come first served. */
export function fairPause(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const resumeOne = () => {
    waiting.shift()?.();
    // An immediate queued while immediates run waits for the next turn: I/O is polled before the next slice.
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(resumeOne);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        setImmediate(resumeOne);
      }
    });
}
