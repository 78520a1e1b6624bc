package io.fanout.tensor.cuda;

import io.fanout.tensor.HostCopies;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Overlapped host-to-device transfer (as in SALIENT) behind {@link CudaBackend#upload}: the host
 * range is copied into a pinned staging region ({@code cuMemHostAlloc}), a non-blocking copy stream
 * uploads it into the region's device twin while the compute stream still runs the previous batch,
 * and the compute stream waits on the copy's event and then moves the data into the target tensor
 * with a device-to-device copy (so a tensor still read by the previous batch is overwritten only
 * after that batch's work).
 *
 * <p>Uploads between two host read-backs form a group (one batch) and append to one of three
 * regions in rotation; {@link #endGroup} (called before every read-back) records the event after
 * which the region is free. A region is reused three groups later, after its event has passed, so
 * the host never waits for the batch still computing. A region grows (doubling) when a group does
 * not fit; the buffers it outgrew are freed once their group's work has run.
 *
 * <p>Every copy is bracketed with timing events on the copy stream, and an event on the compute
 * stream marks where it starts to wait for the copy; {@link #stats} gives the hidden share of copy
 * time and the data wait ({@link OverlapStats}). One thread at a time, like the backend.
 */
final class StagedUploads implements AutoCloseable {
  private static final long INITIAL_BYTES = 8L << 20;
  private static final int ALIGN = 256;

  /** Elements per staged copy (256 MiB), so a region stays well under the 2 GiB pinned limit. */
  private static final int CHUNK = 64 << 20;

  /** Groups whose timings are kept after a reset; later ones are not measured. */
  private static final int MAX_GROUPS = 1_000_000;

  /** Pinned and device buffers of one size, freed together. */
  private static final class Buffers {
    final PinnedBuffer host;
    final CUdeviceptr dev = new CUdeviceptr();

    Buffers(long bytes) {
      host = PinnedBuffer.allocate(bytes);
      int rc = JCudaDriver.cuMemAlloc(dev, bytes);
      if (rc != 0) {
        host.close();
        CudaDriver.check("cuMemAlloc", rc);
      }
    }

    void free(NativeCleanup c) {
      c.run("cuMemFree", () -> JCudaDriver.cuMemFree(dev));
      c.close(host);
    }
  }

  private static final class Region {
    Buffers buf;
    long used;
    final List<Buffers> retired = new ArrayList<>();
    final CUevent done = new CUevent();
    final List<CUevent[]> copyEvents = new ArrayList<>();
    int copies;

    /** A group is appending to this region. */
    boolean open;

    /** A closed group's work may still be running; its timings are not collected yet. */
    boolean pending;
  }

  private final CUstream compute;
  private final CUstream copy = new CUstream();
  private final CUevent base = new CUevent();
  private final Region[] regions = new Region[3];
  private int current;
  private final List<OverlapStats.Group> timeline = new ArrayList<>();

  StagedUploads(CUstream compute) {
    this.compute = compute;
    try {
      CudaDriver.check("cuStreamCreate", JCudaDriver.cuStreamCreate(copy, NON_BLOCKING));
      CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(base, 0));
      CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(base, compute));
      for (int i = 0; i < regions.length; i++) {
        Region r = new Region();
        regions[i] = r;
        CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(r.done, 0));
        r.buf = new Buffers(INITIAL_BYTES);
      }
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  /** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronization with the null stream. */
  static final int NON_BLOCKING = 0x1;

  /** Uploads {@code src[off .. off+n)} into {@code dst}, ordered on the compute stream. */
  void upload(float[] src, int off, int n, CUdeviceptr dst) {
    for (int done = 0; done < n; done += CHUNK) {
      int len = Math.min(CHUNK, n - done);
      long pos = reserve(4L * len);
      HostCopies.put(
          regions[current].buf.host.bytes().position((int) pos).asFloatBuffer(),
          0,
          src,
          off + done,
          len);
      transfer(pos, 4L * len, dst.withByteOffset(4L * done));
    }
  }

  /** Uploads {@code src[off .. off+n)} into {@code dst}, ordered on the compute stream. */
  void upload(int[] src, int off, int n, CUdeviceptr dst) {
    for (int done = 0; done < n; done += CHUNK) {
      int len = Math.min(CHUNK, n - done);
      long pos = reserve(4L * len);
      HostCopies.put(
          regions[current].buf.host.bytes().position((int) pos).asIntBuffer(),
          0,
          src,
          off + done,
          len);
      transfer(pos, 4L * len, dst.withByteOffset(4L * done));
    }
  }

  /** Room for {@code bytes} in the current region; starts a group there when it is empty. */
  private long reserve(long bytes) {
    Region r = regions[current];
    if (!r.open) {
      reclaim(r);
      r.open = true;
    }
    if (r.used + bytes > r.buf.host.size()) {
      long cap = r.buf.host.size();
      while (cap < bytes) {
        cap *= 2;
      }
      r.retired.add(r.buf); // may still be read by this group's copies: freed after its done
      r.buf = new Buffers(Math.max(cap, 2 * r.buf.host.size()));
      r.used = 0;
    }
    long pos = r.used;
    r.used += (bytes + ALIGN - 1) / ALIGN * ALIGN;
    return pos;
  }

  /** Waits until the region's last group has run, collects its timings, frees outgrown buffers. */
  private void reclaim(Region r) {
    if (!r.pending) {
      return;
    }
    CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(r.done));
    collect(r);
    NativeCleanup c = new NativeCleanup();
    for (Buffers b : r.retired) {
      b.free(c);
    }
    r.retired.clear();
    r.pending = false;
    r.copies = 0;
    c.rethrow();
  }

  private void transfer(long pos, long bytes, CUdeviceptr dst) {
    Region r = regions[current];
    if (r.copies == r.copyEvents.size()) {
      CUevent[] ev = {new CUevent(), new CUevent(), new CUevent()};
      for (CUevent e : ev) {
        CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(e, 0));
      }
      r.copyEvents.add(ev);
    }
    CUevent[] ev = r.copyEvents.get(r.copies++);
    CUdeviceptr stage = r.buf.dev.withByteOffset(pos);
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(ev[0], copy));
    CudaDriver.check(
        "cuMemcpyHtoDAsync",
        JCudaDriver.cuMemcpyHtoDAsync(
            stage, r.buf.host.pointer().withByteOffset(pos), bytes, copy));
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(ev[1], copy));
    // where the compute stream gets to this copy: its wait starts there
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(ev[2], compute));
    CudaDriver.check("cuStreamWaitEvent", JCudaDriver.cuStreamWaitEvent(compute, ev[1], 0));
    CudaDriver.check(
        "cuMemcpyDtoDAsync", JCudaDriver.cuMemcpyDtoDAsync(dst, stage, bytes, compute));
  }

  /**
   * Closes the current group (before a host read-back): records when its device-side copies have
   * run and moves on to the next region.
   */
  void endGroup() {
    Region r = regions[current];
    if (!r.open) {
      return;
    }
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(r.done, compute));
    r.open = false;
    r.pending = true;
    r.used = 0;
    current = (current + 1) % regions.length;
  }

  private void collect(Region r) {
    double[] start = new double[r.copies];
    double[] end = new double[r.copies];
    double[] reach = new double[r.copies];
    for (int k = 0; k < r.copies; k++) {
      CUevent[] ev = r.copyEvents.get(k);
      start[k] = elapsed(ev[0]);
      end[k] = elapsed(ev[1]);
      reach[k] = elapsed(ev[2]);
    }
    if (timeline.size() < MAX_GROUPS) {
      timeline.add(new OverlapStats.Group(start, end, reach, elapsed(r.done)));
    }
  }

  private double elapsed(CUevent e) {
    float[] ms = new float[1];
    CudaDriver.check("cuEventElapsedTime", JCudaDriver.cuEventElapsedTime(ms, base, e));
    return ms[0];
  }

  /**
   * Overlap figures of the groups since the last reset (the first {@link #MAX_GROUPS}); waits for
   * the groups still running.
   */
  OverlapStats stats() {
    endGroup();
    for (int i = 1; i <= regions.length; i++) {
      Region r = regions[(current + i) % regions.length];
      if (r.pending) {
        reclaim(r);
      }
    }
    List<OverlapStats.Group> t = new ArrayList<>(timeline);
    t.sort((a, b) -> Double.compare(a.done(), b.done()));
    return OverlapStats.of(t);
  }

  /** Forgets the groups measured so far (e.g. after warm-up batches). */
  void resetStats() {
    stats();
    timeline.clear();
  }

  /** Waits for the copy stream, then frees every buffer, event and the stream. */
  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    c.run("cuStreamSynchronize", () -> JCudaDriver.cuStreamSynchronize(copy));
    c.run("cuStreamSynchronize", () -> JCudaDriver.cuStreamSynchronize(compute));
    for (Region r : regions) {
      if (r == null) {
        continue;
      }
      if (r.buf != null) {
        r.buf.free(c);
      }
      for (Buffers b : r.retired) {
        b.free(c);
      }
      c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(r.done));
      for (CUevent[] ev : r.copyEvents) {
        for (CUevent e : ev) {
          c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(e));
        }
      }
    }
    c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(base));
    c.run("cuStreamDestroy", () -> JCudaDriver.cuStreamDestroy(copy));
    c.rethrow();
  }
}
