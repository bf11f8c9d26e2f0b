// Which live topics' events the store records (a feed reads them again from there) and which are signals only.
import { describe, expect, it } from 'vitest';
import {
  commentTopic,
  isRecordedTopic,
  revocationsTopic,
  runLinkTopic,
  runTopic,
  sessionsTopic,
  taskTopic,
  todoTopic,
} from '../src/live-topics.ts';

describe('recorded topics', () => {
  it("are a session's cards, a list's changes and comments, and a run's versions", () => {
    for (const topic of [todoTopic('ses_1'), taskTopic('ws_1', 'default'), commentTopic('ws_1', 'tasks:x'), runTopic('run_1')]) {
      expect(isRecordedTopic(topic), topic).toBe(true);
    }
  });

  it("are not the signals: a run link's revocation, a key's, the sessions' activity", () => {
    for (const topic of [runLinkTopic('run_1'), revocationsTopic('ws_1'), sessionsTopic('ws_1')]) {
      expect(isRecordedTopic(topic), topic).toBe(false);
    }
  });
});
