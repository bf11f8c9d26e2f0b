// A worker's link to the writer (`serve --workers N`): its mutations go over its own connection to the writer's Unix
// socket (the address and the secret come from the primary), not through the primary; held while no writer is up.
import net from 'node:net';
import { STORE_UNREACHABLE_MESSAGE } from '@agent-tasks/core';
import type { AnyRouter } from '@trpc/server';
import type { Logger } from '../logger.ts';
import { type JsonLines, jsonLines } from './json-lines.ts';
import {
  type PrimaryLink,
  WRITE_PROTOCOL,
  type WriteCall,
  type WriteFailure,
  type WriteHello,
  isWriteAnswer,
  parseAnswerLine,
} from './messages.ts';
import { MAX_LINE_CHARS, type WriterLink, errorOf, handMutationsToWriter } from './writer.ts';

/** A call that reached no writer, or whose writer died with it: whether it ran is unknown (answered 503; may retry). */
const NOT_RUN: WriteFailure = { kind: 'domain', code: 'UNAVAILABLE', message: STORE_UNREACHABLE_MESSAGE, reason: 'unreachable' };

type Waiting = { resolve(value: unknown): void; reject(error: unknown): void };
type Connection = { lines: JsonLines<WriteCall | WriteHello>; pending: Map<number, Waiting> };
type Writer = { address: string; secret: string };

/**
 * Calls made while no writer is connected wait up to `holdMs` for one; calls on a connection that closes before their
 * answer are answered unavailable. The revocations an answer carries are applied (`forget`) before it resolves. Also
 * readies the router's mutations to use the link.
 */
export function writerLink(
  link: PrimaryLink,
  router: AnyRouter,
  options: { holdMs: number; log: Logger; forget: (tokenHashes?: string[]) => void },
): WriterLink {
  handMutationsToWriter(router);
  /** Calls made while no writer was connected, oldest first. */
  let held: { message: WriteCall; waiting: Waiting; timer: ReturnType<typeof setTimeout> }[] = [];
  let writer: Writer | null = null;
  let connected: Connection | null = null;
  let next = 1;

  function send(connection: Connection, message: WriteCall, waiting: Waiting) {
    connection.pending.set(message.call, waiting);
    connection.lines.send(message);
  }

  function connect(to: Writer) {
    const socket = net.createConnection(to.address);
    /** The calls sent on this connection and not yet answered. */
    const pending = new Map<number, Waiting>();
    const connection: Connection = {
      pending,
      lines: jsonLines<WriteCall | WriteHello>(socket, {
        maxLineChars: MAX_LINE_CHARS,
        parseLine: parseAnswerLine,
        onBadLine: (line, problem) => options.log.warn({ line, problem }, 'a line from the writer was ignored'),
        onMessage(message) {
          if (!isWriteAnswer(message)) throw new Error('not an answer');
          const waiting = pending.get(message.call);
          if (!waiting) return;
          pending.delete(message.call);
          // Before the answer: a caller told its key is revoked finds it refused here at once.
          for (const hashes of message.revoked ?? []) options.forget(hashes ?? undefined);
          if (message.ok) {
            // Handed on unchanged: an object or array is sent as the writer wrote it, parsed only if something here
            // reads it (parseAnswerLine). In a box: a promise resolved with the data itself would read its `then`. A
            // run's view comes as its source, made here (handMutationsToWriter).
            waiting.resolve('view' in message ? { view: message.view } : { data: message.data });
          } else waiting.reject(errorOf(message.failure));
        },
      }),
    };
    socket.once('connect', () => {
      if (writer !== to) return void socket.destroy();
      connection.lines.send({ hello: to.secret, protocol: WRITE_PROTOCOL });
      connected = connection;
      const waiting = held;
      held = [];
      for (const entry of waiting) {
        clearTimeout(entry.timer);
        send(connection, entry.message, entry.waiting);
      }
    });
    socket.on('error', () => undefined); // 'close' follows
    socket.once('close', () => {
      if (connected === connection) connected = null;
      // The writer went away (died, or is stopping) with these calls: whether they committed is unknown.
      for (const waiting of pending.values()) waiting.reject(errorOf(NOT_RUN));
      pending.clear();
      // Not reached (yet), or lost: tried again while this is still the writer.
      const retry = () => writer === to && !connected && connect(to);
      if (writer === to && !connected) setTimeout(retry, 100).unref();
    });
  }

  link.onMessage((message) => {
    if (message.at !== 'write:writer') return;
    if (message.writer?.address === writer?.address && message.writer?.secret === writer?.secret) return;
    // Another writer (or none): new calls wait for it rather than go to a connection on its way out, whose calls its
    // close answers.
    writer = message.writer;
    connected = null;
    if (writer) connect(writer);
  });
  // Asked once this link listens: an announcement sent before (while this process was loading) may have been missed.
  link.send({ at: 'write:where' });

  return {
    call(path, input, actor, requestId) {
      const message: WriteCall = { call: next++, path, input, actor, requestId };
      return new Promise((resolve, reject) => {
        const waiting = { resolve, reject };
        if (connected) return send(connected, message, waiting);
        const entry = {
          message,
          waiting,
          timer: setTimeout(() => {
            held = held.filter((h) => h !== entry);
            reject(errorOf(NOT_RUN));
          }, options.holdMs),
        };
        held.push(entry);
      });
    },
  };
}
