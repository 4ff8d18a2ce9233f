import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';

/** The part of a readable stream the executor uses on a stage's output (command.ts). */
export interface OutputStream {
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  once(event: 'close', listener: () => void): this;
  destroy(): void;
}

/** One read's worth: a pipe holds 64 KiB unless its writer grew it (F_SETPIPE_SZ, up to 1 MiB unprivileged). */
const READ_BYTES = 64 * 1024;
/** Every reader reads into this one buffer (synchronously: nothing else runs meanwhile). */
const scratch = Buffer.allocUnsafe(READ_BYTES);
/**
 * The most one drain reads: what the largest pipe an unprivileged writer can make holds (1 MiB). A writer that
 * keeps it filling (a process outside the namespace that opened the pipe) is streamed instead of holding the
 * event loop in a read loop.
 */
const DRAIN_BYTES = 1024 * 1024;

/**
 * The server's read end of a zygote stage's output or error pipe (zygote.pl; a spare's too), held as a bare
 * non-blocking descriptor while the command runs, with nothing of it in the event loop. Most commands end within a few milliseconds: their whole
 * output is then read in one go (`drain`, once the zygote has reported the stage reaped, when every writer in its
 * namespace is gone), with no stream made and torn down and no wake-up per chunk and per end of file. A command
 * that runs on is streamed (`attach`): as a net.Socket on the same descriptor, from where the pipe stands. Until
 * then its output waits in the pipe (64 KiB at least), and a writer that fills it waits for the attach.
 *
 * Events: 'data' (Buffer), then 'close' once, at the end of the output or when destroyed.
 */
export class PipeReader extends EventEmitter implements OutputStream {
  private fd: number | undefined;
  private socket: net.Socket | undefined;
  private closed = false;

  constructor(fd: number) {
    super();
    this.fd = fd;
  }

  /** Still read by `drain` (neither streamed nor closed). */
  get held(): boolean {
    return this.fd !== undefined;
  }

  /**
   * Reads what the pipe holds now, up to `maxBytes`. True when it reached the end of the output (the reader is then
   * closed); false when a writer still holds the pipe (a process outside the stage's namespace was handed it:
   * EAGAIN, or more than `maxBytes` came), or the output is being streamed already.
   */
  drain(maxBytes = DRAIN_BYTES): boolean {
    for (let read = 0; this.fd !== undefined; ) {
      if (read >= maxBytes) return false;
      let n: number;
      try {
        n = fs.readSync(this.fd, scratch, 0, Math.min(READ_BYTES, maxBytes - read), null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        n = 0; // EIO and the like: no more to read from it
      }
      if (n === 0) {
        this.destroy();
        return true;
      }
      // A copy of what was read: a listener may keep the chunk. (A fresh 64 KiB buffer per read, three reads per
      // call, cost more in garbage collection than the stream this replaces.)
      read += n;
      this.emit('data', Buffer.from(scratch.subarray(0, n))); // a listener may destroy us (an output limit)
    }
    return this.closed;
  }

  /** As a stream's: a reader always flows (its output is read whether or not anyone listens). */
  resume(): this {
    return this;
  }

  /** Streams the rest of the output from here on (the command runs on). */
  attach(): void {
    if (this.fd === undefined) return;
    const socket = new net.Socket({ fd: this.fd, readable: true, writable: false });
    this.fd = undefined;
    this.socket = socket;
    socket.on('error', () => undefined); // a read error ends the output like its end: 'close' follows
    socket.on('data', (chunk: Buffer) => this.emit('data', chunk));
    socket.once('close', () => this.finish());
  }

  destroy(): void {
    if (this.fd !== undefined) {
      const fd = this.fd;
      this.fd = undefined;
      fs.closeSync(fd);
      this.finish();
    } else this.socket?.destroy(); // its 'close' finishes us
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}
