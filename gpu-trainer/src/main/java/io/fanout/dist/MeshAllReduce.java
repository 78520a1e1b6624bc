package io.fanout.dist;

import io.fanout.train.GradientReducer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

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
 * <p>Not thread-safe: one trainer thread uses it.
 */
public final class MeshAllReduce implements GradientReducer {
  private static final int MAGIC = 0x46414152; // "FAAR"
  static final int KIND_HELLO = 1;
  private static final int KIND_ACK = 2;
  private static final int KIND_REDUCE = 3;
  private static final int KIND_GATHER = 4;
  private static final int HEADER_BYTES = 24;
  private static final int SOCKET_BUFFER = 4 << 20;

  private final int rank;
  private final int world;
  private final String[] endpoints;
  private final long sessionId;
  private final long timeoutNanos;
  private final SocketChannel[] peers;
  private final Selector selector;
  private final SelectionKey[] keys;
  private final ByteBuffer[] headerOut;
  private final ByteBuffer[] headerIn;
  private final ByteBuffer[] sendViews;
  private final ByteBuffer[] recvViews;
  private final long[] gathered;
  private final Consumer<SelectionKey> onReady = this::onReady;
  private Runnable abortCheck = () -> {};

  private ByteBuffer sendBuf;
  private ByteBuffer recvBuf;
  private FloatBuffer sendFloats;
  private FloatBuffer recvFloats;
  private float[] acc = new float[0];
  private float[] tmp = new float[0];
  private int capacity = -1;
  private int step;
  private int pending;
  private boolean progress;
  private String phase = "setup";
  private PeerException failure;
  private boolean closed;

  private MeshAllReduce(
      int rank,
      String[] endpoints,
      long sessionId,
      long timeoutNanos,
      SocketChannel[] peers,
      Selector selector) {
    this.rank = rank;
    this.world = endpoints.length;
    this.endpoints = endpoints;
    this.sessionId = sessionId;
    this.timeoutNanos = timeoutNanos;
    this.peers = peers;
    this.selector = selector;
    this.keys = new SelectionKey[world];
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
    server.bind(new InetSocketAddress(host, port), 1024);
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
      addrs[i] = parse(eps[i], i);
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
        long deadline = System.nanoTime() + timeoutNanos;
        ByteBuffer hello = header(KIND_HELLO, rank, eps.length, sessionId);
        for (int p = 0; p < rank; p++) {
          peers[p] = connectTo(rank, p, eps[p], addrs[p], deadline, timeoutMillis);
          hello.clear();
          writeFully(peers[p], hello, deadline, p, eps[p], "handshake");
        }
        acceptFrom(rank, eps, server, sessionId, peers, deadline, timeoutMillis);
        ByteBuffer ack = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p < rank; p++) {
          ack.clear();
          readFully(peers[p], ack, deadline, p, eps[p], "handshake", timeoutMillis);
          ack.flip();
          if (checkHeader(ack, KIND_ACK, p, eps.length, sessionId, p, eps[p]) == -2) {
            throw new PeerException(
                p, "rank " + p + " (" + eps[p] + ") answered for another session");
          }
        }
      }
      MeshAllReduce r = new MeshAllReduce(rank, eps, sessionId, timeoutNanos, peers, selector);
      r.register();
      return r;
    } catch (IOException e) {
      closeAll(peers, selector);
      throw new PeerException(-1, "rank " + rank + ": connection setup failed: " + e, e);
    } catch (RuntimeException e) {
      closeAll(peers, selector);
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
      closeAll(peers, selector);
    }
  }

  /**
   * Sets a check that long waits call about twice a second; it aborts the wait by throwing (e.g.
   * Spark's {@code TaskContext::killTaskIfInterrupted} when the stage is cancelled).
   */
  public void abortCheck(Runnable check) {
    this.abortCheck = check == null ? () -> {} : check;
  }

  /** {@code rank R (host:port)}, as error messages name a peer. */
  public String describe(int peer) {
    return "rank " + peer + " (" + endpoints[peer] + ")";
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
    transferBuffers(headerOut, headerIn, "header exchange");
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
    transferBuffers(sendViews, recvViews, what);
  }

  /** Sends {@code out[p]} to and receives {@code in[p]} from every peer concurrently. */
  private void transferBuffers(ByteBuffer[] out, ByteBuffer[] in, String what) {
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

  private ByteBuffer[] curOut;
  private ByteBuffer[] curIn;

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

  private void register() throws IOException {
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

  private static String kindName(int kind) {
    switch (kind) {
      case KIND_REDUCE:
        return "all-reduce";
      case KIND_GATHER:
        return "all-gather";
      case KIND_HELLO:
        return "handshake";
      case KIND_ACK:
        return "handshake reply";
      default:
        return "message kind " + kind;
    }
  }

  // --- connection setup ------------------------------------------------------------------------

  static InetSocketAddress parse(String endpoint, int rank) {
    int colon = endpoint == null ? -1 : endpoint.lastIndexOf(':');
    if (colon <= 0 || colon == endpoint.length() - 1) {
      throw new IllegalArgumentException(
          "endpoint of rank " + rank + " is '" + endpoint + "', expected host:port");
    }
    String host = endpoint.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(endpoint.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException(
          "endpoint of rank "
              + rank
              + " is '"
              + endpoint
              + "', expected host:port with a port in 1..65535");
    }
    return new InetSocketAddress(host, port);
  }

  static ByteBuffer header(int kind, int rank, int world, long session) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(MAGIC).putInt(kind).putInt(rank).putInt(world).putLong(session).flip();
    return b;
  }

  /** Checks a handshake header; returns the rank it announces, or -2 for another session. */
  private static int checkHeader(
      ByteBuffer b, int kind, int expectRank, int world, long session, int peer, String ep) {
    int magic = b.getInt();
    int k = b.getInt();
    int r = b.getInt();
    int w = b.getInt();
    long s = b.getLong();
    String who = peer >= 0 ? "rank " + peer + " (" + ep + ")" : "a connection from " + ep;
    if (magic != MAGIC || k != kind) {
      throw new PeerException(
          peer, who + " did not answer with a Fanout " + kindName(kind) + " (wrong magic or kind)");
    }
    if (s != session) {
      return -2; // e.g. a stray connection from an earlier attempt: the caller drops it
    }
    if (w != world) {
      throw new PeerException(peer, who + " runs with " + w + " workers, this rank with " + world);
    }
    if (expectRank >= 0 && r != expectRank) {
      throw new PeerException(peer, who + " announced rank " + r + ", expected " + expectRank);
    }
    return r;
  }

  private static SocketChannel connectTo(
      int rank, int p, String ep, InetSocketAddress addr, long deadline, long timeoutMillis)
      throws IOException {
    IOException last = null;
    while (true) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        throw new PeerException(
            p,
            "rank "
                + rank
                + ": could not connect to rank "
                + p
                + " ("
                + ep
                + ") within "
                + timeoutMillis
                + " ms"
                + (last == null ? "" : ": " + last));
      }
      SocketChannel ch = SocketChannel.open();
      try {
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.socket().connect(addr, (int) Math.min(Integer.MAX_VALUE, Math.max(1, left)));
        return ch;
      } catch (ConnectException | NoRouteToHostException | java.net.SocketTimeoutException e) {
        ch.close();
        last = e;
        try {
          Thread.sleep(Math.min(50, Math.max(1, left)));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new PeerException(p, "rank " + rank + ": interrupted connecting to " + ep, ie);
        }
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
    }
  }

  private static void acceptFrom(
      int rank,
      String[] eps,
      ServerSocketChannel server,
      long session,
      SocketChannel[] peers,
      long deadline,
      long timeoutMillis)
      throws IOException {
    int expected = eps.length - 1 - rank;
    if (expected == 0) {
      return;
    }
    boolean wasBlocking = server.isBlocking();
    server.configureBlocking(false);
    try (Selector sel = Selector.open()) {
      server.register(sel, SelectionKey.OP_ACCEPT);
      ByteBuffer hello = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      int got = 0;
      while (got < expected) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          List<String> missing = new ArrayList<>();
          int first = -1;
          for (int p = rank + 1; p < eps.length; p++) {
            if (peers[p] == null) {
              missing.add("rank " + p + " (" + eps[p] + ")");
              first = first < 0 ? p : first;
            }
          }
          throw new PeerException(
              first,
              "rank "
                  + rank
                  + ": timed out after "
                  + timeoutMillis
                  + " ms waiting for "
                  + String.join(", ", missing)
                  + " to connect");
        }
        sel.select(Math.max(1, left));
        sel.selectedKeys().clear();
        SocketChannel ch;
        while ((ch = server.accept()) != null) {
          String from = String.valueOf(ch.getRemoteAddress());
          try {
            hello.clear();
            readFully(ch, hello, deadline, -1, from, "handshake", timeoutMillis);
            hello.flip();
            int r = checkHeader(hello, KIND_HELLO, -1, eps.length, session, -1, from);
            if (r == -2) {
              ch.close(); // another session's stray connection
              continue;
            }
            if (r <= rank || r >= eps.length || peers[r] != null) {
              throw new PeerException(
                  r,
                  "rank "
                      + rank
                      + ": unexpected connection announcing rank "
                      + r
                      + " from "
                      + from
                      + " (expected one from each of ranks "
                      + (rank + 1)
                      + ".."
                      + (eps.length - 1)
                      + ")");
            }
            ByteBuffer ack = header(KIND_ACK, rank, eps.length, session);
            writeFully(ch, ack, deadline, r, eps[r], "handshake");
            peers[r] = ch;
            got++;
          } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
          }
        }
      }
    } finally {
      if (server.isOpen()) {
        server.configureBlocking(wasBlocking);
      }
    }
  }

  private static void readFully(
      SocketChannel ch,
      ByteBuffer b,
      long deadline,
      int peer,
      String ep,
      String what,
      long timeoutMillis)
      throws IOException {
    String who = peer >= 0 ? "rank " + peer + " (" + ep + ")" : ep;
    boolean wasBlocking = ch.isBlocking();
    ch.configureBlocking(false);
    try (Selector sel = Selector.open()) {
      ch.register(sel, SelectionKey.OP_READ);
      while (b.hasRemaining()) {
        int n = ch.read(b);
        if (n < 0) {
          throw new PeerException(peer, who + " closed its connection during the " + what);
        }
        if (n == 0) {
          long left = (deadline - System.nanoTime()) / 1_000_000;
          if (left <= 0) {
            throw new PeerException(
                peer,
                "timed out after " + timeoutMillis + " ms waiting for the " + what + " of " + who);
          }
          sel.select(Math.max(1, left));
          sel.selectedKeys().clear();
        }
      }
    }
    if (ch.isOpen()) {
      ch.configureBlocking(wasBlocking);
    }
  }

  private static void writeFully(
      SocketChannel ch, ByteBuffer b, long deadline, int peer, String ep, String what)
      throws IOException {
    // Handshake messages are 24 bytes: they fit in any socket buffer, a blocking write returns.
    while (b.hasRemaining()) {
      if (ch.write(b) < 0 || System.nanoTime() > deadline) {
        throw new PeerException(
            peer, "could not send the " + what + " to rank " + peer + " (" + ep + ")");
      }
    }
  }

  private static void closeAll(SocketChannel[] peers, Selector selector) {
    for (SocketChannel ch : peers) {
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }
    if (selector != null) {
      try {
        selector.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
