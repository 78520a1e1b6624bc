package io.fanout.train;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * The reading half of a pipelined loader, whatever its batches are: the parts of an epoch (shard
 * files) are read on reader threads, part {@code p} by thread {@code p mod readers}; each item a
 * part yields is filled into a buffer taken from its reader's pool ({@code prefetch + 1} buffers,
 * which bounds memory), either by a pool of fill threads or by the reader itself, and queued on the
 * reader's bounded queue. One consumer takes the buffers part after part ({@link #next}), so the
 * order is the parts' order whatever the thread timing, and every item is filled the same way
 * whichever thread fills it.
 *
 * <p>A failure on any thread is rethrown by {@link #next} in the consumer (a {@link
 * RuntimeException} as it is, anything else wrapped in one naming the part); {@link #close} stops
 * every thread and waits for them.
 *
 * @param <D> what a part yields (e.g. a decoded batch)
 * @param <B> the reusable buffer an item is filled into
 */
public final class PartPipeline<D, B> implements AutoCloseable {
  private static final Object END = new Object();

  /** One sequentially read unit of an epoch. */
  public interface Part<D> {
    /** Opens the part; an iterator that is {@link AutoCloseable} is closed once read. */
    Iterator<D> open();

    /** A name for error messages (the file). */
    String name();
  }

  /** Fills a buffer from one item of a part; called by one thread at a time per buffer. */
  @FunctionalInterface
  public interface Filler<D, B> {
    void fill(B buffer, D item, Part<D> part);
  }

  private final List<? extends Part<D>> parts;
  private final Filler<D, B> filler;
  private final ToIntFunction<B> owner;
  private final List<BlockingQueue<Object>> queues = new ArrayList<>();
  private final List<BlockingQueue<B>> pools = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final ExecutorService fills; // null: the readers fill their own items
  private int part;
  private long waitNanos;
  private volatile boolean closed;

  /**
   * Starts the readers (and fill threads).
   *
   * @param threadCount readers (at most one a part) and, with {@code fillOnPool}, fill threads
   * @param prefetch items each reader keeps ready (its queue and pool hold {@code prefetch + 1})
   * @param buffer makes a buffer of reader {@code t}'s pool
   * @param owner the reader whose pool a buffer came from (the {@code t} it was made for)
   * @param fillOnPool fill on {@code threadCount} fill threads (the items of the part the consumer
   *     drains are then filled side by side); else each reader fills its own items in order
   * @param name the threads' name prefix ({@code name-loader-t}, {@code name-fill-i})
   */
  public PartPipeline(
      List<? extends Part<D>> parts,
      int threadCount,
      int prefetch,
      IntFunction<B> buffer,
      ToIntFunction<B> owner,
      Filler<D, B> filler,
      boolean fillOnPool,
      String name) {
    this.parts = List.copyOf(parts);
    this.filler = filler;
    this.owner = owner;
    int depth = Math.max(1, prefetch) + 1;
    int n = Math.max(1, Math.min(threadCount, Math.max(1, parts.size())));
    for (int t = 0; t < n; t++) {
      queues.add(new ArrayBlockingQueue<>(depth));
      BlockingQueue<B> pool = new ArrayBlockingQueue<>(depth);
      for (int i = 0; i < depth; i++) {
        pool.add(buffer.apply(t));
      }
      pools.add(pool);
    }
    if (fillOnPool) {
      AtomicInteger made = new AtomicInteger();
      fills =
          Executors.newFixedThreadPool(
              Math.max(1, threadCount),
              r -> {
                Thread th = new Thread(r, name + "-fill-" + made.getAndIncrement());
                th.setDaemon(true);
                return th;
              });
    } else {
      fills = null;
    }
    for (int t = 0; t < n; t++) {
      final int id = t;
      Thread th = new Thread(() -> produce(id), name + "-loader-" + t);
      th.setDaemon(true);
      threads.add(th);
    }
    for (Thread th : threads) {
      th.start();
    }
  }

  /** The number of readers (the owners of the buffer pools: {@code 0 .. readers - 1}). */
  public int readers() {
    return threads.size();
  }

  private void produce(int t) {
    BlockingQueue<Object> q = queues.get(t);
    try {
      for (int p = t; p < parts.size() && !closed; p += readers()) {
        Part<D> part = parts.get(p);
        Iterator<D> it = part.open();
        try {
          while (it.hasNext()) {
            D item = it.next();
            B buffer = pools.get(t).take();
            if (fills != null) {
              Fill f = new Fill(buffer, item, part);
              fills.execute(f);
              q.put(f);
            } else {
              filler.fill(buffer, item, part);
              q.put(buffer);
            }
          }
        } finally {
          if (it instanceof AutoCloseable c) {
            c.close();
          }
        }
        q.put(END);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      pass(q, e);
    }
  }

  /**
   * Hands a background thread's failure to the consumer through {@code q}, which rethrows it; gives
   * up when interrupted (the pipeline is closing).
   */
  static void pass(BlockingQueue<Object> q, Throwable e) {
    try {
      q.put(e);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
    }
  }

  /** One item being filled on the fill pool; the consumer waits for it in queue order. */
  private final class Fill implements Runnable {
    private final B buffer;
    private final D item;
    private final Part<D> part;
    private final CountDownLatch done = new CountDownLatch(1);
    private Throwable error; // published by done

    Fill(B buffer, D item, Part<D> part) {
      this.buffer = buffer;
      this.item = item;
      this.part = part;
    }

    @Override
    public void run() {
      try {
        filler.fill(buffer, item, part);
      } catch (Throwable e) {
        error = e;
      } finally {
        done.countDown();
      }
    }
  }

  /**
   * The next filled buffer in part order, or null at the end; {@code timed}: count the time spent
   * waiting as the consumer's data wait ({@link #waitNanos}).
   */
  public B next(boolean timed) {
    while (part < parts.size()) {
      BlockingQueue<Object> q = queues.get(part % readers());
      Object o = take(q, timed);
      if (o instanceof Throwable e) {
        throw rethrown(e, parts.get(part));
      }
      if (o == END) {
        part++;
        continue;
      }
      if (o instanceof PartPipeline<?, ?>.Fill f) {
        @SuppressWarnings("unchecked")
        Fill fill = (Fill) f;
        return filled(fill, timed);
      }
      @SuppressWarnings("unchecked")
      B b = (B) o;
      return b;
    }
    return null;
  }

  private static RuntimeException rethrown(Throwable e, Part<?> part) {
    return e instanceof RuntimeException re
        ? re
        : new IllegalStateException("loading " + part.name() + " failed", e);
  }

  /** {@code f}'s buffer once its fill is done (its failure rethrown). */
  private B filled(Fill f, boolean timed) {
    if (f.done.getCount() > 0) {
      long t0 = System.nanoTime();
      try {
        f.done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for batches", e);
      }
      if (timed) {
        waitNanos += System.nanoTime() - t0;
      }
    }
    if (f.error != null) {
      throw rethrown(f.error, f.part);
    }
    return f.buffer;
  }

  /**
   * The next item of {@code q} (this pipeline's or a later stage's queue); with {@code timed}, time
   * spent blocked counts as the consumer's data wait.
   */
  Object take(BlockingQueue<Object> q, boolean timed) {
    Object o = q.poll();
    if (o == null) {
      long t0 = System.nanoTime();
      try {
        o = q.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for batches", e);
      }
      if (timed) {
        waitNanos += System.nanoTime() - t0;
      }
    }
    return o;
  }

  /** Returns a buffer to its reader's pool; it must not be used afterwards. */
  public void recycle(B buffer) {
    pools.get(owner.applyAsInt(buffer)).offer(buffer);
  }

  /** Nanoseconds {@link #next} spent waiting while timed. */
  public long waitNanos() {
    return waitNanos;
  }

  /** Stops the readers and fill threads and waits for them (at most a few seconds). */
  @Override
  public void close() {
    closed = true;
    for (Thread t : threads) {
      t.interrupt();
    }
    if (fills != null) {
      fills.shutdownNow();
    }
    // Wait for the threads even when the caller was interrupted (a cancelled task): they stop
    // promptly once interrupted, and none may outlive the pipeline.
    long deadline = System.nanoTime() + 5_000_000_000L;
    boolean interrupted = false;
    if (fills != null) {
      interrupted |=
          waitUntil(
              deadline,
              fills::isTerminated,
              ms -> fills.awaitTermination(ms, TimeUnit.MILLISECONDS));
    }
    interrupted |= join(threads, deadline);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits for {@code threads} to end until the deadline ({@link System#nanoTime()}), through
   * interrupts; returns whether one was swallowed, for the caller to restore.
   */
  static boolean join(List<Thread> threads, long deadline) {
    boolean interrupted = false;
    for (Thread t : threads) {
      interrupted |= waitUntil(deadline, () -> !t.isAlive(), t::join);
    }
    return interrupted;
  }

  /** A wait of at most some milliseconds that an interrupt may cut short. */
  private interface TimedWait {
    void await(long millis) throws InterruptedException;
  }

  private static boolean waitUntil(long deadline, BooleanSupplier done, TimedWait wait) {
    boolean interrupted = false;
    while (!done.getAsBoolean()) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        break;
      }
      try {
        wait.await(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    return interrupted;
  }
}
