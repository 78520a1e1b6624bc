package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pool's reuse, accounting and leak check, over a counting fake allocator. */
class DevicePoolTest {
  /** Hands out distinct ids; tracks which are live; can be told to run out of memory. */
  static final class FakeAllocator implements DevicePool.Allocator<Long> {
    final Set<Long> live = new HashSet<>();
    long next = 1;
    long capacity = Long.MAX_VALUE;
    long used;

    @Override
    public Long alloc(long bytes) {
      if (used + bytes > capacity) {
        throw new CudaException("cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY");
      }
      used += bytes;
      live.add(next);
      sizes.add(bytes);
      return next++;
    }

    final List<Long> sizes = new ArrayList<>();

    @Override
    public void free(Long p) {
      assertThat(live.remove(p)).as("free of a live buffer").isTrue();
      used -= sizes.get((int) (p - 1));
    }
  }

  @Test
  void buffersAreReusedAcrossBatches() {
    FakeAllocator a = new FakeAllocator();
    try (DevicePool<Long> pool = new DevicePool<>(a)) {
      for (int batch = 0; batch < 5; batch++) {
        // sizes vary a little from batch to batch, as sampled blocks do
        List<DevicePool.Lease<Long>> leases = new ArrayList<>();
        leases.add(pool.acquire(1_000_000 + batch * 1000));
        leases.add(pool.acquire(4096));
        leases.add(pool.acquire(300 + batch));
        leases.forEach(pool::release);
      }
      assertThat(pool.allocations()).isEqualTo(3);
      assertThat(pool.reuses()).isEqualTo(12);
      assertThat(pool.leasedBytes()).isZero();
      pool.checkNoLeaks();
    }
    assertThat(a.live).as("close frees the cache").isEmpty();
  }

  @Test
  void sizeClassesAreQuarterSteps() {
    assertThat(DevicePool.sizeClass(1)).isEqualTo(256);
    assertThat(DevicePool.sizeClass(1024)).isEqualTo(1024);
    assertThat(DevicePool.sizeClass(1025)).isEqualTo(1280);
    assertThat(DevicePool.sizeClass(1281)).isEqualTo(1536);
    assertThat(DevicePool.sizeClass(1793)).isEqualTo(2048);
    for (long b = 1; b < 100_000; b += 97) {
      long c = DevicePool.sizeClass(b);
      assertThat(c).isGreaterThanOrEqualTo(b).isLessThan(Math.max(256, b) * 5 / 4 + 1);
    }
  }

  @Test
  void leakCheckFailsOnUnreleasedMemory() {
    FakeAllocator a = new FakeAllocator();
    DevicePool<Long> pool = new DevicePool<>(a);
    DevicePool.Lease<Long> kept = pool.acquire(5000);
    pool.release(pool.acquire(100));
    assertThatThrownBy(pool::checkNoLeaks)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 buffer(s), 5120 bytes");
    pool.close();
    assertThat(a.live).containsExactly(kept.ptr());
    pool.release(kept);
    assertThat(a.live).as("a lease released after close is freed").isEmpty();
  }

  @Test
  void doubleReleaseIsAnError() {
    DevicePool<Long> pool = new DevicePool<>(new FakeAllocator());
    DevicePool.Lease<Long> l = pool.acquire(10);
    pool.release(l);
    assertThatThrownBy(() -> pool.release(l)).hasMessageContaining("released twice");
  }

  @Test
  void outOfMemoryTrimsTheCacheAndRetries() {
    FakeAllocator a = new FakeAllocator();
    a.capacity = 3000;
    DevicePool<Long> pool = new DevicePool<>(a);
    pool.release(pool.acquire(2048));
    assertThat(pool.cachedBytes()).isEqualTo(2048);
    DevicePool.Lease<Long> big = pool.acquire(2500);
    assertThat(big.capacity()).isEqualTo(2560);
    assertThat(pool.cachedBytes()).isZero();
    assertThatThrownBy(() -> pool.acquire(1024))
        .isInstanceOf(CudaException.class)
        .hasMessage("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)");
  }
}
