package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class TurnsTest {
  @Test
  void usersRunInTicketOrderAndAGivenUpTicketIsSkipped() throws Exception {
    Turns turns = new Turns();
    long a = turns.take();
    long b = turns.take();
    long c = turns.take();
    List<Long> order = new CopyOnWriteArrayList<>();
    Thread tc = user(turns, c, order);
    Thread tb = user(turns, b, order);
    tc.start();
    tb.start();
    // b and c wait for a, then run in ticket order whichever thread started first.
    order.add(a);
    turns.done(a);
    tb.join(30_000);
    tc.join(30_000);
    assertThat(order).containsExactly(a, b, c);
    long d = turns.take();
    long e = turns.take();
    turns.done(e); // given up before its turn: once d is done, f's turn comes
    turns.done(d);
    long f = turns.take();
    Thread tf = user(turns, f, order);
    tf.start();
    tf.join(30_000);
    assertThat(order).containsExactly(a, b, c, f);
  }

  private static Thread user(Turns turns, long ticket, List<Long> order) {
    return new Thread(
        () -> {
          try {
            turns.await(ticket);
            order.add(ticket);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            turns.done(ticket);
          }
        });
  }
}
