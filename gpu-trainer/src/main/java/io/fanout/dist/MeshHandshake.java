package io.fanout.dist;

import static io.fanout.dist.MeshWire.HEADER_BYTES;
import static io.fanout.dist.MeshWire.KIND_ACK;
import static io.fanout.dist.MeshWire.KIND_HELLO;
import static io.fanout.dist.MeshWire.MAGIC;
import static io.fanout.dist.MeshWire.SOCKET_BUFFER;
import static io.fanout.dist.MeshWire.header;
import static io.fanout.dist.MeshWire.kindName;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The connection setup of {@link MeshAllReduce}: a rank connects to every lower rank and accepts
 * one connection from every higher rank, each opened by a handshake (hello, then ack) that carries
 * rank, world size and session. Every wait is bounded by one deadline.
 */
final class MeshHandshake {
  private MeshHandshake() {}

  /**
   * Connects {@code rank} to every other rank of a world of more than one, filling {@code peers}
   * (indexed by rank; this rank's slot stays null). On failure the caller closes what {@code peers}
   * holds.
   */
  static void connectPeers(
      int rank,
      String[] eps,
      InetSocketAddress[] addrs,
      ServerSocketChannel server,
      long sessionId,
      SocketChannel[] peers,
      long timeoutNanos,
      long timeoutMillis)
      throws IOException {
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
        throw new PeerException(p, "rank " + p + " (" + eps[p] + ") answered for another session");
      }
    }
  }

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

  static void closeAll(SocketChannel[] peers, Selector selector) {
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
