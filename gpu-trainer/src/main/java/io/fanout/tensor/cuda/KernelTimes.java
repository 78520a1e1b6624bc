package io.fanout.tensor.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Device time per kernel, for profiling: with {@code -Dfanout.cuda.kernel-times=true} every launch
 * of the backend is bracketed by two events on its stream, and {@link #perKernel} sums the elapsed
 * times by kernel name. Off by default (the events cost a few microseconds per launch). One thread
 * at a time, like the backend.
 */
final class KernelTimes implements AutoCloseable {
  static final boolean ENABLED = Boolean.getBoolean("fanout.cuda.kernel-times");

  private final List<CUevent> events = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private int used;

  /** Records the start event of a launch of {@code kernel} on {@code stream}. */
  void start(String kernel, CUstream stream) {
    names.add(kernel);
    record(stream);
  }

  /** Records the end event of the launch started last. */
  void end(CUstream stream) {
    record(stream);
  }

  private void record(CUstream stream) {
    if (used == events.size()) {
      CUevent e = new CUevent();
      CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(e, 0));
      events.add(e);
    }
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(events.get(used++), stream));
  }

  /** Milliseconds and launches per kernel since the last {@link #reset}; waits for the device. */
  Map<String, double[]> perKernel() {
    Map<String, double[]> out = new TreeMap<>();
    if (used == 0) {
      return out;
    }
    CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(events.get(used - 1)));
    float[] ms = new float[1];
    for (int i = 0; i + 1 < used; i += 2) {
      CudaDriver.check(
          "cuEventElapsedTime",
          JCudaDriver.cuEventElapsedTime(ms, events.get(i), events.get(i + 1)));
      double[] t = out.computeIfAbsent(names.get(i / 2), k -> new double[2]);
      t[0] += ms[0];
      t[1]++;
    }
    return out;
  }

  /** Forgets the launches recorded so far (their events are reused). */
  void reset() {
    if (used > 0) {
      CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(events.get(used - 1)));
    }
    used = 0;
    names.clear();
  }

  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    for (CUevent e : events) {
      c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(e));
    }
    events.clear();
    c.rethrow();
  }
}
