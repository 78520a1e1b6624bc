package io.fanout.tensor.cuda;

import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A memory pool that keeps released buffers for reuse, so a training loop whose batches need
 * buffers of similar sizes stops calling the allocator after the first batches. Requests are
 * rounded up to a size class (a power of two, or 1.25, 1.5, 1.75 times one), so a buffer serves any
 * later request of its class. It counts what is leased, what is cached and how often it really
 * allocated, and {@link #checkNoLeaks} fails while any lease is outstanding.
 *
 * <p>Not thread-safe: a backend instance is used by one thread at a time. Reuse is safe for device
 * memory when all work on pool buffers is ordered on one stream, as in {@link CudaBackend}.
 *
 * @param <P> the allocator's pointer type ({@code CUdeviceptr} for the device)
 */
public final class DevicePool<P> implements AutoCloseable {
  /** Allocates and frees raw buffers; {@code alloc} throws on failure. */
  public interface Allocator<P> {
    P alloc(long bytes);

    void free(P p);
  }

  /** A leased buffer of at least the requested size. */
  public static final class Lease<P> {
    private final P ptr;
    private final long capacity;

    private Lease(P ptr, long capacity) {
      this.ptr = ptr;
      this.capacity = capacity;
    }

    public P ptr() {
      return ptr;
    }

    /** The size class the buffer was allocated with (at least the requested bytes). */
    public long capacity() {
      return capacity;
    }
  }

  private final Allocator<P> allocator;
  private final TreeMap<Long, ArrayDeque<Lease<P>>> free = new TreeMap<>();
  private final Map<Lease<P>, Boolean> leased = new IdentityHashMap<>();
  private long leasedBytes;
  private long cachedBytes;
  private long allocations;
  private long reuses;
  private boolean closed;

  public DevicePool(Allocator<P> allocator) {
    this.allocator = allocator;
  }

  /** The size class of a request: the next of 2^k, 1.25, 1.5 and 1.75 times 2^k (min 256 B). */
  static long sizeClass(long bytes) {
    long b = Math.max(bytes, 256);
    int hi = 63 - Long.numberOfLeadingZeros(b);
    long base = 1L << hi;
    if (b == base) {
      return b;
    }
    long quarter = base >>> 2;
    return base + ((b - base + quarter - 1) / quarter) * quarter;
  }

  /** A buffer of at least {@code bytes}, reused when one of its size class is cached. */
  public Lease<P> acquire(long bytes) {
    if (closed) {
      throw new IllegalStateException("device pool is closed");
    }
    long cls = sizeClass(bytes);
    ArrayDeque<Lease<P>> q = free.get(cls);
    Lease<P> l;
    if (q != null && !q.isEmpty()) {
      l = q.pop();
      cachedBytes -= cls;
      reuses++;
    } else {
      l = new Lease<>(allocateOrTrim(cls), cls);
      allocations++;
    }
    leased.put(l, Boolean.TRUE);
    leasedBytes += cls;
    return l;
  }

  private P allocateOrTrim(long cls) {
    try {
      return allocator.alloc(cls);
    } catch (CudaException e) {
      if (cachedBytes == 0) {
        throw e;
      }
      trim(); // out of memory with buffers cached: give them back and try once more
      return allocator.alloc(cls);
    }
  }

  /** Returns a lease to the cache; a lease not from this pool, or released twice, is an error. */
  public void release(Lease<P> l) {
    if (leased.remove(l) == null) {
      throw new IllegalStateException("buffer released twice or not from this pool");
    }
    leasedBytes -= l.capacity;
    if (closed) {
      allocator.free(l.ptr);
      return;
    }
    free.computeIfAbsent(l.capacity, k -> new ArrayDeque<>()).push(l);
    cachedBytes += l.capacity;
  }

  /** Frees every cached (released) buffer. */
  public void trim() {
    RuntimeException first = null;
    for (ArrayDeque<Lease<P>> q : free.values()) {
      for (Lease<P> l : q) {
        try {
          allocator.free(l.ptr);
        } catch (RuntimeException e) {
          first = first == null ? e : first;
        }
      }
    }
    free.clear();
    cachedBytes = 0;
    if (first != null) {
      throw first;
    }
  }

  public long leasedBytes() {
    return leasedBytes;
  }

  public int leasedCount() {
    return leased.size();
  }

  public long cachedBytes() {
    return cachedBytes;
  }

  /** Calls that reached the allocator. */
  public long allocations() {
    return allocations;
  }

  /** Requests served from the cache. */
  public long reuses() {
    return reuses;
  }

  /** Fails with the count and bytes of the leases not released: the leak check for tests. */
  public void checkNoLeaks() {
    if (!leased.isEmpty()) {
      throw new IllegalStateException(
          "device memory leak: "
              + leased.size()
              + " buffer(s), "
              + leasedBytes
              + " bytes still leased from the pool");
    }
  }

  /**
   * Frees the cache; leases still out are freed when released later. Does not check for leaks:
   * tests call {@link #checkNoLeaks} first.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    trim();
  }
}
