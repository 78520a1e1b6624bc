package io.fanout.dist;

import static io.fanout.dist.MeshWire.HEADER_BYTES;
import static io.fanout.dist.MeshWire.SOCKET_BUFFER;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The connected peers of a {@link MeshAllReduce} rank, non-blocking on one selector: sends a buffer
 * to and receives a buffer from every peer concurrently, failing with a {@link PeerException} when
 * a peer closes, errs, or makes no progress within the timeout.
 */
final class MeshChannels {
  private final int rank;
  private final int world;
  private final String[] endpoints;
  private final long timeoutNanos;
  private final SocketChannel[] peers;
  private final Selector selector;
  private final SelectionKey[] keys;
  private final Consumer<SelectionKey> onReady = this::onReady;
  private Runnable abortCheck = () -> {};

  private int step;
  private int pending;
  private boolean progress;
  private String phase = "setup";
  private PeerException failure;
  private ByteBuffer[] curOut;
  private ByteBuffer[] curIn;

  /**
   * @param peers the connected channel of every other rank, indexed by rank
   */
  MeshChannels(
      int rank, String[] endpoints, long timeoutNanos, SocketChannel[] peers, Selector selector) {
    this.rank = rank;
    this.world = endpoints.length;
    this.endpoints = endpoints;
    this.timeoutNanos = timeoutNanos;
    this.peers = peers;
    this.selector = selector;
    this.keys = new SelectionKey[world];
  }

  /**
   * Makes every peer's channel non-blocking, sets its socket options and registers it; allocates
   * the header buffers {@code headerOut[p]} and {@code headerIn[p]} of each peer.
   */
  void register(ByteBuffer[] headerOut, ByteBuffer[] headerIn) throws IOException {
    for (int p = 0; p < world; p++) {
      if (p != rank) {
        SocketChannel ch = peers[p];
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        keys[p] = ch.register(selector, 0, p);
        headerOut[p] = ByteBuffer.allocateDirect(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        headerIn[p] = ByteBuffer.allocateDirect(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      }
    }
  }

  /** See {@link MeshAllReduce#abortCheck}. */
  void abortCheck(Runnable check) {
    this.abortCheck = check;
  }

  /** {@code rank R (host:port)}, as error messages name a peer. */
  String describe(int peer) {
    return "rank " + peer + " (" + endpoints[peer] + ")";
  }

  /**
   * Sends {@code out[p]} to and receives {@code in[p]} from every peer concurrently; {@code what}
   * and {@code step} name the wait in errors.
   */
  void transfer(ByteBuffer[] out, ByteBuffer[] in, String what, int step) {
    this.step = step;
    phase = what;
    curOut = out;
    curIn = in;
    pending = 0;
    for (int p = 0; p < world; p++) {
      if (p == rank) {
        continue;
      }
      int ops =
          (out[p].hasRemaining() ? SelectionKey.OP_WRITE : 0)
              | (in[p].hasRemaining() ? SelectionKey.OP_READ : 0);
      keys[p].interestOps(ops);
      if (ops != 0) {
        pending++;
      }
    }
    long deadline = System.nanoTime() + timeoutNanos;
    while (pending > 0) {
      long wait = deadline - System.nanoTime();
      if (wait <= 0) {
        throw timeout();
      }
      progress = false;
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new PeerException(-1, "rank " + rank + ": interrupted during " + phase);
      }
      abortCheck.run();
      try {
        selector.select(onReady, Math.max(1, Math.min(500, wait / 1_000_000)));
      } catch (IOException e) {
        throw new PeerException(-1, "rank " + rank + ": selector failed during " + phase, e);
      }
      if (failure != null) {
        PeerException f = failure;
        failure = null;
        throw f;
      }
      if (progress) {
        deadline = System.nanoTime() + timeoutNanos;
      }
    }
  }

  private void onReady(SelectionKey key) {
    if (failure != null) {
      return;
    }
    int p = (Integer) key.attachment();
    SocketChannel ch = peers[p];
    try {
      int ops = key.interestOps();
      if (key.isWritable() && curOut[p].hasRemaining()) {
        if (ch.write(curOut[p]) > 0) {
          progress = true;
        }
        if (!curOut[p].hasRemaining()) {
          ops &= ~SelectionKey.OP_WRITE;
        }
      }
      if (key.isReadable() && curIn[p].hasRemaining()) {
        int n = ch.read(curIn[p]);
        if (n < 0) {
          failure =
              new PeerException(
                  p,
                  "rank "
                      + rank
                      + ": "
                      + describe(p)
                      + " closed its connection during "
                      + phase
                      + " of step "
                      + step
                      + " (the peer failed or exited)");
          return;
        }
        if (n > 0) {
          progress = true;
        }
        if (!curIn[p].hasRemaining()) {
          ops &= ~SelectionKey.OP_READ;
        }
      }
      key.interestOps(ops);
      if (ops == 0) {
        pending--;
      }
    } catch (IOException e) {
      failure =
          new PeerException(
              p,
              "rank "
                  + rank
                  + ": connection to "
                  + describe(p)
                  + " failed during "
                  + phase
                  + " of step "
                  + step
                  + ": "
                  + e.getMessage(),
              e);
    }
  }

  private PeerException timeout() {
    StringBuilder who = new StringBuilder();
    int first = -1;
    for (int p = 0; p < world; p++) {
      if (p != rank && keys[p].interestOps() != 0) {
        if (first < 0) {
          first = p;
        } else {
          who.append(", ");
        }
        who.append(describe(p));
        boolean r = (keys[p].interestOps() & SelectionKey.OP_READ) != 0;
        boolean w = (keys[p].interestOps() & SelectionKey.OP_WRITE) != 0;
        who.append(
            r && w ? " [not sending, not receiving]" : r ? " [not sending]" : " [not receiving]");
      }
    }
    return new PeerException(
        first,
        "rank "
            + rank
            + ": timed out after "
            + timeoutNanos / 1_000_000
            + " ms without progress during "
            + phase
            + " of step "
            + step
            + ", waiting for "
            + who);
  }

  /** Closes every channel and the selector. */
  void close() {
    MeshHandshake.closeAll(peers, selector);
  }
}
