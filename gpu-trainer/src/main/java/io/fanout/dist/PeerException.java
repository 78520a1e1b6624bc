package io.fanout.dist;

/**
 * A distributed-training peer failed: it did not connect, closed its connection, sent something
 * unexpected or stayed silent past the timeout. The message names the peer by rank and {@code
 * host:port}; {@link #peerRank()} is -1 when the failure is not tied to one peer.
 */
public final class PeerException extends RuntimeException {
  private final int peerRank;

  public PeerException(int peerRank, String message) {
    super(message);
    this.peerRank = peerRank;
  }

  public PeerException(int peerRank, String message, Throwable cause) {
    super(message, cause);
    this.peerRank = peerRank;
  }

  /** The rank of the failed peer, or -1. */
  public int peerRank() {
    return peerRank;
  }
}
