package io.fanout.features;

import java.util.TreeSet;

/**
 * Serializes the users of one {@link RowCache} in the order they took a ticket: a loader opened
 * ahead (the next epoch's) waits until every earlier one finished or was closed.
 */
public final class Turns {
  private final TreeSet<Long> finished = new TreeSet<>();
  private long issued;
  private long turn;

  /** A ticket; call in the order the users will run. */
  public synchronized long take() {
    return issued++;
  }

  /** Blocks until every earlier ticket is {@link #done}. */
  public synchronized void await(long ticket) throws InterruptedException {
    while (turn != ticket) {
      wait();
    }
  }

  /** Ends {@code ticket}'s turn (or gives it up before it came). */
  public synchronized void done(long ticket) {
    if (ticket < turn) {
      return;
    }
    finished.add(ticket);
    while (finished.remove(turn)) {
      turn++;
    }
    notifyAll();
  }
}
