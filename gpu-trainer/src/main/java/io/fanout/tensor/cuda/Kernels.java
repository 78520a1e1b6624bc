package io.fanout.tensor.cuda;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The backend's kernels: every module of {@link PtxModules} loaded with {@code cuModuleLoadData}.
 */
final class Kernels implements AutoCloseable {
  private final Map<String, CUmodule> modules = new HashMap<>();
  private final Map<String, CUfunction> functions = new HashMap<>();
  private final Map<String, String> signatures = new HashMap<>();

  /** Loads every module into the current context; unloads what it loaded when one fails. */
  Kernels() {
    boolean ok = false;
    try {
      for (Map.Entry<String, List<String>> e : PtxModules.KERNELS.entrySet()) {
        CUmodule m = new CUmodule();
        CudaDriver.check(
            "cuModuleLoadData(" + e.getKey() + ".ptx)",
            JCudaDriver.cuModuleLoadData(
                m, (PtxModules.ptx(e.getKey()) + "\0").getBytes(StandardCharsets.US_ASCII)));
        modules.put(e.getKey(), m);
        signatures.putAll(PtxModules.signatures(e.getKey()));
        for (String k : e.getValue()) {
          CUfunction f = new CUfunction();
          CudaDriver.check(
              "cuModuleGetFunction(" + k + ")", JCudaDriver.cuModuleGetFunction(f, m, k));
          functions.put(k, f);
        }
      }
      ok = true;
    } finally {
      if (!ok) {
        close();
      }
    }
  }

  /**
   * Fails unless {@code args} match the kernel's PTX parameters in count and width: a mismatched
   * launch would read garbage parameters on the device instead of failing.
   */
  void checkArgs(String name, KernelArgs args) {
    String want = signatures.get(name);
    if (!args.signature().equals(want)) {
      throw new IllegalStateException(
          "launch of "
              + name
              + " with arguments ("
              + args.signature()
              + "), PTX takes ("
              + want
              + ")");
    }
  }

  CUfunction get(String name) {
    CUfunction f = functions.get(name);
    if (f == null) {
      throw new IllegalArgumentException("no kernel named " + name);
    }
    return f;
  }

  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    for (CUmodule m : modules.values()) {
      c.run("cuModuleUnload", () -> JCudaDriver.cuModuleUnload(m));
    }
    modules.clear();
    functions.clear();
    c.rethrow();
  }
}
