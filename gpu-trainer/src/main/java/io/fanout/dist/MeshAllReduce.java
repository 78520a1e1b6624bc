package io.fanout.dist;

import static io.fanout.dist.MeshWire.KIND_GATHER;
import static io.fanout.dist.MeshWire.KIND_REDUCE;
import static io.fanout.dist.MeshWire.MAGIC;
import static io.fanout.dist.MeshWire.SOCKET_BUFFER;
import static io.fanout.dist.MeshWire.kindName;

import io.fanout.train.GradientReducer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * Data-parallel gradient averaging over TCP between {@code worldSize} replicas: a reduce-scatter
 * followed by an all-gather.
 *
 * <p><b>Algorithm.</b> The buffer of {@code length} floats is cut into {@code worldSize} contiguous
 * chunks; chunk {@code c} covers {@code [c*length/N, (c+1)*length/N)} and is owned by rank {@code
 * c}. In the reduce-scatter every rank sends chunk {@code c} of its gradients to owner {@code c}.
 * Each owner then sums the {@code N} contributions to its chunk <em>in rank order</em> ({@code ((g0
 * + g1) + g2) + ...}, in float) and divides by {@code N} (one float division per element). In the
 * all-gather every owner sends its finished chunk to every other rank. Each rank therefore sends
 * and receives {@code 2·(N-1)/N} times the model size per step, whatever {@code N}; each mean is
 * computed by exactly one rank and copied, so every replica ends with bit-identical values, equal
 * to the sequential reference {@code (sum in rank order) / N}. A pipelined ring would add each
 * chunk's terms in a rotated order; to keep one fixed order the ranks are connected as a full mesh
 * (each rank exchanges with all others concurrently, {@code N-1} connections per rank).
 *
 * <p><b>Wire format.</b> Little-endian. A step starts with a 24-byte header to every peer (magic,
 * kind, step number, length, 8-byte value) so that replicas that disagree on the step or the buffer
 * length fail with a clear error instead of exchanging garbage; then the raw float chunks. Buffers
 * are direct and reused: a step allocates nothing once the largest length has been seen.
 *
 * <p><b>Failures.</b> Every connect, accept, read and write wait is bounded by the timeout (a wait
 * that makes no progress for that long fails). A peer that never connects, closes its connection or
 * stays silent fails the call with a {@link PeerException} naming its rank and {@code host:port}.
 * After a failure the reducer closes all its connections, so the other replicas fail promptly too
 * instead of waiting for their own timeouts.
 *
 * <p>The connection setup is {@link MeshHandshake}, the concurrent transfers {@link MeshChannels},
 * the wire format {@link MeshWire}; this class holds the reduce schedule.
 *
 * <p>Not thread-safe: one trainer thread uses it.
 */
public final class MeshAllReduce implements GradientReducer {
  private final int rank;
  private final int world;
  private final String[] endpoints;
  private final MeshChannels channels;
  private final ByteBuffer[] headerOut;
  private final ByteBuffer[] headerIn;
  private final ByteBuffer[] sendViews;
  private final ByteBuffer[] recvViews;
  private final long[] gathered;

  private ByteBuffer sendBuf;
  private ByteBuffer recvBuf;
  private FloatBuffer sendFloats;
  private FloatBuffer recvFloats;
  private float[] acc = new float[0];
  private float[] tmp = new float[0];
  private int capacity = -1;
  private int step;
  private boolean closed;

  private MeshAllReduce(
      int rank, String[] endpoints, long timeoutNanos, SocketChannel[] peers, Selector selector) {
    this.rank = rank;
    this.world = endpoints.length;
    this.endpoints = endpoints;
    this.channels = new MeshChannels(rank, endpoints, timeoutNanos, peers, selector);
    this.headerOut = new ByteBuffer[world];
    this.headerIn = new ByteBuffer[world];
    this.sendViews = new ByteBuffer[world];
    this.recvViews = new ByteBuffer[world];
    this.gathered = new long[world];
  }

  /**
   * Opens the server socket a rank listens on, bound to {@code host} and an ephemeral port when
   * {@code port} is 0. Open it before publishing this rank's endpoint.
   */
  public static ServerSocketChannel listen(String host, int port) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
    server.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
    try {
      server.bind(new InetSocketAddress(host, port), 1024);
    } catch (java.net.BindException e) {
      server.close();
      // the JDK's message names no address
      java.net.BindException named =
          new java.net.BindException(
              "cannot listen on " + host + ":" + port + " (" + e.getMessage() + ")");
      named.initCause(e);
      throw named;
    }
    return server;
  }

  /** {@code host:port} of a bound server socket, as published to the other ranks. */
  public static String endpointOf(String host, ServerSocketChannel server) throws IOException {
    return host + ":" + ((InetSocketAddress) server.getLocalAddress()).getPort();
  }

  /**
   * Connects rank {@code rank} to every other rank: it connects to each lower rank's endpoint and
   * accepts one connection from each higher rank on {@code server} (which it does not close). Each
   * connection starts with a handshake carrying rank, world size and {@code sessionId}; a
   * connection from another session (e.g. an earlier attempt of the same job) is refused and
   * ignored.
   *
   * @param endpoints {@code host:port} of every rank, indexed by rank
   * @param server this rank's bound server socket (unused and may be null when there is one rank)
   * @param timeoutMillis bound on every wait, during setup and during each step
   * @throws PeerException naming the ranks that did not connect or answer in time
   */
  public static MeshAllReduce connect(
      int rank,
      List<String> endpoints,
      ServerSocketChannel server,
      long sessionId,
      long timeoutMillis) {
    String[] eps = endpoints.toArray(new String[0]);
    if (eps.length == 0) {
      throw new IllegalArgumentException("distributed training needs at least one endpoint");
    }
    if (rank < 0 || rank >= eps.length) {
      throw new IllegalArgumentException(
          "rank " + rank + " is outside [0, " + eps.length + ") for endpoints " + endpoints);
    }
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeoutMillis + " ms");
    }
    InetSocketAddress[] addrs = new InetSocketAddress[eps.length];
    for (int i = 0; i < eps.length; i++) {
      addrs[i] = MeshHandshake.parse(eps[i], i);
    }
    long timeoutNanos = timeoutMillis * 1_000_000L;
    SocketChannel[] peers = new SocketChannel[eps.length];
    Selector selector = null;
    try {
      selector = Selector.open();
      if (eps.length > 1) {
        if (server == null) {
          throw new IllegalArgumentException("rank " + rank + " needs a server socket");
        }
        MeshHandshake.connectPeers(
            rank, eps, addrs, server, sessionId, peers, timeoutNanos, timeoutMillis);
      }
      MeshAllReduce r = new MeshAllReduce(rank, eps, timeoutNanos, peers, selector);
      r.channels.register(r.headerOut, r.headerIn);
      return r;
    } catch (IOException e) {
      MeshHandshake.closeAll(peers, selector);
      throw new PeerException(-1, "rank " + rank + ": connection setup failed: " + e, e);
    } catch (RuntimeException e) {
      MeshHandshake.closeAll(peers, selector);
      throw e;
    }
  }

  @Override
  public int worldSize() {
    return world;
  }

  @Override
  public int rank() {
    return rank;
  }

  /** The {@code host:port} of every rank, indexed by rank. */
  public List<String> endpoints() {
    return List.of(endpoints);
  }

  /**
   * Replaces {@code gradients[0 .. length)} with the element-wise mean over all ranks: {@code (sum
   * in rank order) / worldSize} in float, bit-identical on every rank. Every rank must call it with
   * the same {@code length}, once per step.
   *
   * @throws PeerException when a peer fails, disagrees on the step or the length, or times out
   */
  @Override
  public void allReduceMean(float[] gradients, int length) {
    if (length < 0 || length > gradients.length) {
      throw new IllegalArgumentException(
          "length " + length + " is outside [0, " + gradients.length + "]");
    }
    allReduceMean(FloatBuffer.wrap(gradients), length);
  }

  /**
   * As {@link #allReduceMean(float[], int)} on a buffer read and written by absolute index (e.g. a
   * GPU backend's pinned host buffer): the chunks go to and from the sockets' buffers straight from
   * it, with the same arithmetic, so the result is bit-identical to the array version's.
   */
  @Override
  public void allReduceMean(FloatBuffer gradients, int length) {
    if (length < 0 || length > gradients.capacity()) {
      throw new IllegalArgumentException(
          "length " + length + " is outside [0, " + gradients.capacity() + "]");
    }
    checkUsable();
    if (world == 1) {
      return; // x / 1f == x
    }
    try {
      step++;
      exchangeHeaders(KIND_REDUCE, length, 0L);
      if (length == 0) {
        return;
      }
      ensureCapacity(length);
      int mine = start(rank, length);
      int mineLen = start(rank + 1, length) - mine;
      int slot = slotSize(length);
      // Reduce-scatter: chunk p of my gradients to owner p; contributions to my chunk into slots.
      for (int p = 0; p < world; p++) {
        if (p != rank) {
          int s = start(p, length);
          sendFloats.put(s, gradients, s, start(p + 1, length) - s);
          view(sendViews[p], s, start(p + 1, length) - s);
          view(recvViews[p], p * slot, mineLen);
        }
      }
      transfer("reduce-scatter");
      sumInRankOrder(gradients, mine, mineLen, slot);
      // All-gather: my finished chunk to everyone; chunk p from owner p at its place.
      for (int p = 0; p < world; p++) {
        if (p != rank) {
          int s = start(p, length);
          view(sendViews[p], mine, mineLen);
          view(recvViews[p], s, start(p + 1, length) - s);
        }
      }
      transfer("all-gather");
      for (int p = 0; p < world; p++) {
        if (p != rank) {
          int s = start(p, length);
          gradients.put(s, recvFloats, s, start(p + 1, length) - s);
        }
      }
    } catch (RuntimeException e) {
      fail(e);
      throw e;
    }
  }

  /**
   * Every rank's {@code value}, indexed by rank; all ranks must call it at the same point. Used to
   * compare parameter checksums across replicas.
   */
  public long[] allGather(long value) {
    checkUsable();
    gathered[rank] = value;
    if (world > 1) {
      try {
        step++;
        exchangeHeaders(KIND_GATHER, 0, value);
      } catch (RuntimeException e) {
        fail(e);
        throw e;
      }
    }
    return gathered.clone();
  }

  /** Closes every connection (not the server socket passed to {@link #connect}). Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      channels.close();
    }
  }

  /**
   * Sets a check that long waits call about twice a second; it aborts the wait by throwing (e.g.
   * Spark's {@code TaskContext::killTaskIfInterrupted} when the stage is cancelled).
   */
  public void abortCheck(Runnable check) {
    channels.abortCheck(check == null ? () -> {} : check);
  }

  /** {@code rank R (host:port)}, as error messages name a peer. */
  public String describe(int peer) {
    return channels.describe(peer);
  }

  // ---------------------------------------------------------------------------------------------

  private void sumInRankOrder(FloatBuffer gradients, int mine, int n, int slot) {
    float[] a = acc;
    float[] t = tmp;
    for (int p = 0; p < world; p++) {
      if (p == 0) {
        if (rank == 0) {
          gradients.get(mine, a, 0, n);
        } else {
          recvFloats.get(0, a, 0, n);
        }
      } else {
        if (p == rank) {
          gradients.get(mine, t, 0, n);
        } else {
          recvFloats.get(p * slot, t, 0, n);
        }
        for (int i = 0; i < n; i++) {
          a[i] += t[i];
        }
      }
    }
    float w = world;
    for (int i = 0; i < n; i++) {
      a[i] = a[i] / w;
    }
    gradients.put(mine, a, 0, n);
    sendFloats.put(mine, a, 0, n);
  }

  /** First element of chunk {@code c} (c in [0, world]). */
  private int start(int c, int length) {
    return (int) ((long) c * length / world);
  }

  /** Room for the largest chunk: chunks differ in length by at most one. */
  private int slotSize(int length) {
    return (length + world - 1) / world;
  }

  private void ensureCapacity(int length) {
    int need = Math.max(length, slotSize(length) * world);
    if (need <= capacity) {
      return;
    }
    sendBuf = ByteBuffer.allocateDirect(need * 4).order(ByteOrder.LITTLE_ENDIAN);
    recvBuf = ByteBuffer.allocateDirect(need * 4).order(ByteOrder.LITTLE_ENDIAN);
    sendFloats = sendBuf.asFloatBuffer();
    recvFloats = recvBuf.asFloatBuffer();
    acc = new float[slotSize(length)];
    tmp = new float[slotSize(length)];
    for (int p = 0; p < world; p++) {
      if (p != rank) {
        sendViews[p] = sendBuf.duplicate();
        recvViews[p] = recvBuf.duplicate();
      }
    }
    capacity = need;
  }

  private static void view(ByteBuffer b, int firstFloat, int floats) {
    b.clear();
    b.position(firstFloat * 4);
    b.limit(firstFloat * 4 + floats * 4);
  }

  private void exchangeHeaders(int kind, int length, long value) {
    for (int p = 0; p < world; p++) {
      if (p != rank) {
        ByteBuffer h = headerOut[p];
        h.clear();
        h.putInt(MAGIC).putInt(kind).putInt(step).putInt(length).putLong(value).flip();
        headerIn[p].clear();
      }
    }
    channels.transfer(headerOut, headerIn, "header exchange", step);
    for (int p = 0; p < world; p++) {
      if (p != rank) {
        ByteBuffer h = headerIn[p];
        h.flip();
        int magic = h.getInt();
        int k = h.getInt();
        int s = h.getInt();
        int len = h.getInt();
        long v = h.getLong();
        if (magic != MAGIC || k != kind || s != step) {
          throw new PeerException(
              p,
              "rank "
                  + rank
                  + ": "
                  + describe(p)
                  + " is out of step: expected "
                  + kindName(kind)
                  + " #"
                  + step
                  + ", got "
                  + (magic != MAGIC ? "bytes that are not a Fanout header" : kindName(k) + " #" + s)
                  + "; every replica must make the same calls in the same order");
        }
        if (len != length) {
          throw new PeerException(
              p,
              "rank "
                  + rank
                  + ": "
                  + describe(p)
                  + " reduces "
                  + len
                  + " floats at step "
                  + step
                  + ", this rank "
                  + length
                  + "; replicas must have the same model");
        }
        gathered[p] = v;
      }
    }
  }

  private void transfer(String what) {
    channels.transfer(sendViews, recvViews, what, step);
  }

  private void checkUsable() {
    if (closed) {
      throw new IllegalStateException(
          "rank " + rank + ": the gradient reducer is closed (a previous step failed or close())");
    }
  }

  /** A failed step leaves peers mid-protocol: close so that they fail promptly too. */
  private void fail(RuntimeException e) {
    close();
  }
}
