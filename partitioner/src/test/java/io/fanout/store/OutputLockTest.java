package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputLockTest {
  @TempDir Path tmp;

  @Test
  void aSecondWriterIsRefusedNamingTheHolder() {
    Path out = tmp.resolve("store");
    try (OutputLock first = OutputLock.acquire(out, "graph store")) {
      Path file = tmp.resolve(".store.lock");
      assertThat(file).exists();
      assertThat(out).doesNotExist();
      assertThat(first.holder()).contains("pid " + ProcessHandle.current().pid());
      assertThatThrownBy(() -> OutputLock.acquire(out, "graph store"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("graph store " + out)
          .hasMessageContaining("another writer")
          .hasMessageContaining("pid " + ProcessHandle.current().pid());
      // another spelling of the same output is the same lock
      assertThatThrownBy(() -> OutputLock.acquire(tmp.resolve("x/../store"), "graph store"))
          .isInstanceOf(InvalidInputException.class);
      // other outputs are free
      try (OutputLock other = OutputLock.acquire(tmp.resolve("shards"), "shards")) {
        assertThat(other.holder()).isNotBlank();
      }
    }
    assertThat(tmp.resolve(".store.lock")).doesNotExist();
    try (OutputLock again = OutputLock.acquire(out, "graph store")) {
      assertThat(again.holder()).isNotBlank();
    }
  }

  @Test
  void directoriesMadeOnlyForTheLockAreRemovedUnlessTheWriterFilledThem() throws Exception {
    Path unused = tmp.resolve("a").resolve("b").resolve("out");
    OutputLock.acquire(unused, "--output").close();
    assertThat(tmp.resolve("a")).doesNotExist();

    Path used = tmp.resolve("c").resolve("out");
    try (OutputLock l = OutputLock.acquire(used, "--output")) {
      Files.createDirectories(used);
    }
    assertThat(used).isDirectory();

    Files.createDirectories(tmp.resolve("d"));
    OutputLock.acquire(tmp.resolve("d").resolve("out"), "--output").close();
    assertThat(tmp.resolve("d")).isDirectory();
  }

  @Test
  void closingTwiceNeverDropsAnotherWritersLock() {
    Path out = tmp.resolve("model");
    OutputLock first = OutputLock.acquire(out, "model dir");
    first.close();
    try (OutputLock second = OutputLock.acquire(out, "model dir")) {
      first.close();
      assertThatThrownBy(() -> OutputLock.acquire(out, "model dir"))
          .isInstanceOf(InvalidInputException.class);
    }
  }

  @Test
  void aStaleLockFileOfADeadWriterIsTakenOver() throws Exception {
    Files.writeString(tmp.resolve(".model.lock"), "pid 1 on nowhere\n");
    try (OutputLock l = OutputLock.acquire(tmp.resolve("model"), "model dir")) {
      assertThat(Files.readString(tmp.resolve(".model.lock"))).isEqualTo(l.holder() + "\n");
    }
  }

  @Test
  void concurrentWritersHaveOneWinnerAtATime() throws Exception {
    Path out = tmp.resolve("out");
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    try {
      Future<?>[] fs = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        fs[t] =
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 200; i++) {
                    try (OutputLock l = OutputLock.acquire(out, "output")) {
                      most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      inside.decrementAndGet();
                    } catch (InvalidInputException e) {
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                });
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(most.get()).isEqualTo(1);
    assertThat(tmp.resolve(".out.lock")).doesNotExist();
  }

  @Test
  void noOutputIsNoLock() {
    try (OutputLock none = OutputLock.acquire(null, "embeddings")) {
      assertThat(none).isNotNull();
    }
  }
}
