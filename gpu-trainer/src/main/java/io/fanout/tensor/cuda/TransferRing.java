package io.fanout.tensor.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Overlapped host-to-device transfer (as in SALIENT): two or three slots, each a pinned host
 * staging buffer and a device buffer. The loader thread fills slot {@code i+1}'s pinned buffer and
 * {@link #submit}s it; a dedicated copy stream uploads it while the compute stream still runs batch
 * {@code i}. Events order the two streams: the compute stream waits for a slot's upload before
 * using it ({@link #beginCompute}), and the loader refills a slot only once the event recorded at
 * {@link #endCompute} has passed, i.e. the compute stream is done with the slot.
 *
 * <p>Every upload and step is bracketed with timing events; {@link #stats} turns the timeline of
 * the batches completed so far into the hidden share of copy time and the data wait.
 *
 * <p>The loader calls {@link #acquire} and {@link #submit}; the trainer {@link #beginCompute} and
 * {@link #endCompute}, for slots in the same order. A slot is refilled only after the trainer ended
 * its previous batch and that batch's work ran, so the ring holds at most as many batches in flight
 * as it has slots.
 */
public final class TransferRing implements AutoCloseable {
  /** One staging slot. */
  public static final class Slot {
    private final int index;
    private final PinnedBuffer host;
    private final CUdeviceptr device = new CUdeviceptr();
    private final CUevent copyStart = new CUevent();
    private final CUevent uploaded = new CUevent();
    private final CUevent computeStart = new CUevent();
    private final CUevent consumed = new CUevent();

    /** Submitted and not yet released by {@link #endCompute}; guarded by the slot's monitor. */
    private boolean pendingEnd;

    /** Holds a batch whose timings were not yet collected. */
    private boolean used;

    private Slot(int index, PinnedBuffer host) {
      this.index = index;
      this.host = host;
    }

    public int index() {
      return index;
    }

    /** The pinned staging buffer the loader fills. */
    public PinnedBuffer host() {
      return host;
    }

    /** The device copy; valid on the compute stream between begin and end of compute. */
    public CUdeviceptr device() {
      return device;
    }
  }

  private final CUcontext context;
  private final CUstream copyStream = new CUstream();
  private final CUstream computeStream;
  private final CUevent base = new CUevent();
  private final Slot[] slots;
  private final long capacity;
  private final List<double[]> timeline = new ArrayList<>();

  /**
   * A ring of {@code count} (2 or 3) slots of {@code capacity} bytes, whose compute side runs on
   * {@code computeStream}. The context must be current on the calling thread.
   */
  public TransferRing(CUcontext context, CUstream computeStream, int count, long capacity) {
    if (count < 2 || count > 3) {
      throw new IllegalArgumentException("a transfer ring has 2 or 3 slots, got " + count);
    }
    this.context = context;
    this.computeStream = computeStream;
    this.capacity = capacity;
    this.slots = new Slot[count];
    try {
      CudaDriver.check("cuStreamCreate", JCudaDriver.cuStreamCreate(copyStream, NON_BLOCKING));
      CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(base, 0));
      CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(base, computeStream));
      for (int i = 0; i < count; i++) {
        Slot s = new Slot(i, PinnedBuffer.allocate(capacity));
        slots[i] = s;
        CudaDriver.check("cuMemAlloc", JCudaDriver.cuMemAlloc(s.device, capacity));
        for (CUevent e : new CUevent[] {s.copyStart, s.uploaded, s.computeStart, s.consumed}) {
          CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(e, 0));
        }
      }
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  /** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronization with the null stream. */
  static final int NON_BLOCKING = 0x1;

  /** Bytes per slot. */
  public long capacity() {
    return capacity;
  }

  /**
   * The slot for batch {@code batch} (slots rotate), once the trainer has ended the batch that used
   * it before and that batch's work has run on the compute stream (so both its pinned and its
   * device buffer are free); that batch's timings are collected then. Loader thread; blocks while
   * the loader is a whole ring ahead of the trainer.
   */
  public Slot acquire(long batch) throws InterruptedException {
    Slot s = slots[(int) (batch % slots.length)];
    synchronized (s) {
      while (s.pendingEnd) {
        s.wait();
      }
    }
    current();
    if (s.used) {
      CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(s.consumed));
      collect(s);
      s.used = false;
    }
    return s;
  }

  /** Uploads the first {@code bytes} of the slot's pinned buffer on the copy stream. */
  public void submit(Slot s, long bytes) {
    if (bytes > capacity) {
      throw new IllegalArgumentException(
          "batch of " + bytes + " bytes exceeds the " + capacity + "-byte transfer slot");
    }
    current();
    synchronized (s) {
      s.pendingEnd = true;
      s.used = true;
    }
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(s.copyStart, copyStream));
    CudaDriver.check(
        "cuMemcpyHtoDAsync",
        JCudaDriver.cuMemcpyHtoDAsync(s.device, s.host.pointer(), bytes, copyStream));
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(s.uploaded, copyStream));
  }

  /** Makes the compute stream wait for the slot's upload. Trainer thread. */
  public CUdeviceptr beginCompute(Slot s) {
    current();
    CudaDriver.check(
        "cuStreamWaitEvent", JCudaDriver.cuStreamWaitEvent(computeStream, s.uploaded, 0));
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(s.computeStart, computeStream));
    return s.device;
  }

  /** Marks the slot free for the next upload once the work queued so far has run. */
  public void endCompute(Slot s) {
    current();
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(s.consumed, computeStream));
    synchronized (s) {
      s.pendingEnd = false;
      s.notifyAll();
    }
  }

  private void collect(Slot s) {
    double[] t = new double[4];
    CUevent[] events = {s.copyStart, s.uploaded, s.computeStart, s.consumed};
    float[] ms = new float[1];
    for (int k = 0; k < 4; k++) {
      CudaDriver.check("cuEventElapsedTime", JCudaDriver.cuEventElapsedTime(ms, base, events[k]));
      t[k] = ms[0];
    }
    synchronized (timeline) {
      timeline.add(t);
    }
  }

  /** Overlap figures over the batches whose slots were reused or {@link #drain drained}. */
  public OverlapStats stats() {
    double[][] t;
    synchronized (timeline) {
      t = timeline.toArray(new double[0][]);
    }
    java.util.Arrays.sort(t, (a, b) -> Double.compare(a[2], b[2]));
    int n = t.length;
    double[] cs = new double[n];
    double[] ce = new double[n];
    double[] ks = new double[n];
    double[] ke = new double[n];
    for (int i = 0; i < n; i++) {
      cs[i] = t[i][0];
      ce[i] = t[i][1];
      ks[i] = t[i][2];
      ke[i] = t[i][3];
    }
    return OverlapStats.of(cs, ce, ks, ke);
  }

  /** Waits for every ended batch's work and collects its timings (after the last endCompute). */
  public void drain() {
    current();
    for (Slot s : slots) {
      if (s != null && s.used && !s.pendingEnd) {
        CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(s.consumed));
        collect(s);
        s.used = false;
      }
    }
  }

  private void current() {
    CudaDriver.check("cuCtxSetCurrent", JCudaDriver.cuCtxSetCurrent(context));
  }

  /** Frees streams, events, pinned and device buffers, each in its own finally. */
  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    c.run("cuCtxSetCurrent", () -> JCudaDriver.cuCtxSetCurrent(context));
    c.run("cuStreamSynchronize", () -> JCudaDriver.cuStreamSynchronize(copyStream));
    for (Slot s : slots) {
      if (s == null) {
        continue;
      }
      c.run("cuMemFree", () -> JCudaDriver.cuMemFree(s.device));
      c.close(s.host);
      for (CUevent e : new CUevent[] {s.copyStart, s.uploaded, s.computeStart, s.consumed}) {
        c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(e));
      }
    }
    c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(base));
    c.run("cuStreamDestroy", () -> JCudaDriver.cuStreamDestroy(copyStream));
    c.rethrow();
  }
}
