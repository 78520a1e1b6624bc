package io.fanout.tensor.cuda;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.HostFloats;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.Tensor;
import io.fanout.tensor.TransposeAhead;
import io.fanout.tensor.TransposedCsr;
import java.util.Map;
import java.util.logging.Logger;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The tensor backend on one CUDA device, through JCuda's driver API: tensors are device buffers
 * from a {@link DevicePool}, operations are the kernels of {@link PtxModules} (dense products
 * through cuBLAS when {@code libcublas.so.12} loads, else the own tiled SGEMM), all queued in order
 * on one compute stream.
 *
 * <p>Host memory is touched only by {@link #upload}, {@link #download} and the 8- or 4-byte
 * read-backs of the loss and the correct count. Uploads are overlapped ({@link StagedUploads}): the
 * host range goes into pinned memory, a copy stream moves it to the device while the compute stream
 * still runs the previous batch, and the compute stream picks it up after its earlier work, so a
 * tensor the previous batch still reads is never overwritten early. Read-backs are synchronous
 * copies on the legacy default stream, ordered after the compute stream's work (a blocking stream).
 * Freed tensors return to the pool; a buffer is reused only by work queued on the compute stream
 * after it was freed, which runs after its last use.
 *
 * <p>Deterministic and without float atomics: every output element is computed by one thread in a
 * fixed order. The backward of aggregation and of spmm gathers over a transposed CSR built on the
 * host ({@link TransposedCsr}) from the int tensors' host mirrors; after {@link
 * #prepareAggregateBackward} on a helper thread while the forward runs ({@link TransposeAhead}).
 */
public final class CudaBackend implements io.fanout.tensor.Backend, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CudaBackend.class.getName());
  private static final int THREADS = 256;

  /**
   * Rows per chunk of the chunked bias gradient (bias.cu), more when a matrix has over 65,535 such
   * chunks (the grid's y limit); matrices of at most this many rows are reduced in plain ascending
   * row order, as on the CPU.
   */
  static final int BIAS_GRAD_CHUNK = 512;

  private static final long MAX_BLOCKS = 1L << 16;

  private final int ordinal;
  private final CUdevice device = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final CUstream stream = new CUstream();
  private final String deviceName;
  private final Kernels kernels;
  private final CublasGemm cublas;
  private final DevicePool<CUdeviceptr> pool;
  private final StagedUploads staged;
  private final TransposeAhead transposes = new TransposeAhead("fanout-cuda-transpose");
  private boolean closed;
  private final int multiprocessors;
  private final KernelTimes kernelTimes = KernelTimes.ENABLED ? new KernelTimes() : null;

  /**
   * Device milliseconds and launches per kernel since the last {@link #resetTransferStats}, when
   * {@code -Dfanout.cuda.kernel-times=true}; empty otherwise. Waits for the device.
   */
  public Map<String, double[]> kernelTimes() {
    return kernelTimes == null ? Map.of() : kernelTimes.perKernel();
  }

  /** A backend on device {@code ordinal} (0 when negative). */
  public CudaBackend(int ordinal) {
    this.ordinal = Math.max(ordinal, 0);
    CudaDriver.init();
    CudaDriver.check("cuDeviceGet", JCudaDriver.cuDeviceGet(device, this.ordinal));
    CudaDriver.check(
        "cuDevicePrimaryCtxRetain", JCudaDriver.cuDevicePrimaryCtxRetain(context, device));
    Kernels k = null;
    CublasGemm c = null;
    StagedUploads st = null;
    try {
      current();
      byte[] name = new byte[256];
      CudaDriver.check("cuDeviceGetName", JCudaDriver.cuDeviceGetName(name, name.length, device));
      deviceName = cString(name);
      int[] sms = new int[1];
      CudaDriver.check(
          "cuDeviceGetAttribute",
          JCudaDriver.cuDeviceGetAttribute(
              sms, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
      multiprocessors = sms[0];
      CudaDriver.check("cuStreamCreate", JCudaDriver.cuStreamCreate(stream, 0));
      k = new Kernels();
      st = new StagedUploads(stream);
      String[] why = {""};
      c = CublasGemm.tryCreate(stream, why);
      LOG.info(
          "CUDA device "
              + this.ordinal
              + " ("
              + deviceName
              + "): dense products through "
              + (c != null
                  ? "cuBLAS"
                  : "the own tiled SGEMM kernel (cuBLAS not loaded: " + why[0] + ")"));
    } catch (RuntimeException e) {
      NativeCleanup cl = new NativeCleanup();
      cl.close(st);
      cl.close(c);
      cl.close(k);
      cl.run("cuDevicePrimaryCtxRelease", () -> JCudaDriver.cuDevicePrimaryCtxRelease(device));
      try {
        cl.rethrow();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    kernels = k;
    cublas = c;
    staged = st;
    pool =
        new DevicePool<>(
            new DevicePool.Allocator<>() {
              @Override
              public CUdeviceptr alloc(long bytes) {
                CUdeviceptr p = new CUdeviceptr();
                CudaDriver.check("cuMemAlloc", JCudaDriver.cuMemAlloc(p, bytes));
                return p;
              }

              @Override
              public void free(CUdeviceptr p) {
                CudaDriver.check("cuMemFree", JCudaDriver.cuMemFree(p));
              }
            });
  }

  private static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Override
  public String name() {
    return "cuda" + ordinal + "(" + deviceName + ", " + (cublas != null ? "cuBLAS" : "sgemm") + ")";
  }

  /** Whether dense products go through cuBLAS (else the own SGEMM kernel). */
  public boolean usesCublas() {
    return cublas != null;
  }

  /** The device memory pool, for the leak check in tests ({@link DevicePool#checkNoLeaks}). */
  public DevicePool<CUdeviceptr> pool() {
    return pool;
  }

  /**
   * How much of the upload time ran behind compute and how long the compute stream waited for
   * uploads, over the batches since the last {@link #resetTransferStats} (waits for pending work).
   */
  public OverlapStats transferStats() {
    current();
    return staged.stats();
  }

  /** Starts a new measurement of {@link #transferStats} (e.g. after warm-up batches). */
  public void resetTransferStats() {
    current();
    staged.resetStats();
    if (kernelTimes != null) {
      kernelTimes.reset();
    }
  }

  void current() {
    CudaDriver.check("cuCtxSetCurrent", JCudaDriver.cuCtxSetCurrent(context));
  }

  // ---- memory ----

  @Override
  public FloatTensor allocFloat(int n) {
    CudaTensors.Floats t = new CudaTensors.Floats(this, n, lease(n));
    zero(t, 0, n);
    return t;
  }

  @Override
  public IntTensor allocInt(int n) {
    CudaTensors.Ints t = new CudaTensors.Ints(this, n, lease(n));
    CudaDriver.check(
        "cuMemsetD32Async", JCudaDriver.cuMemsetD32Async(t.lease.ptr(), 0, Math.max(n, 0), stream));
    return t;
  }

  private DevicePool.Lease<CUdeviceptr> lease(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("tensor length must be >= 0, got " + n);
    }
    current();
    return pool.acquire(4L * Math.max(n, 1));
  }

  @Override
  public void free(Tensor t) {
    CudaTensors.Base b = base(t);
    if (b instanceof CudaTensors.Ints i) {
      transposes.invalidate(i.mirror);
    }
    if (b.lease != null) {
      pool.release(b.lease);
      b.lease = null;
    }
  }

  private CudaTensors.Base base(Tensor t) {
    if (t instanceof CudaTensors.Base b && b.owner() == this) {
      return b;
    }
    throw new IllegalArgumentException(
        t == null
            ? "tensor is null"
            : "a tensor of backend " + t.owner().name() + " was passed to " + name());
  }

  /** The device address of element {@code off} of {@code t}, checked against its length. */
  private CUdeviceptr at(Tensor t, int off, long n) {
    CudaTensors.Base b = base(t);
    if (b.lease == null) {
      throw new IllegalArgumentException("tensor was freed");
    }
    if (off < 0 || n < 0 || off + n > b.length()) {
      throw new IndexOutOfBoundsException(
          "range [" + off + ", " + (off + n) + ") outside a tensor of " + b.length() + " elements");
    }
    return b.lease.ptr().withByteOffset(4L * off);
  }

  @Override
  public void upload(float[] src, int srcOff, FloatTensor dst, int dstOff, int n) {
    CUdeviceptr d = at(dst, dstOff, n);
    if (n == 0) {
      return;
    }
    current();
    staged.upload(src, srcOff, n, d);
  }

  @Override
  public void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n) {
    CUdeviceptr d = at(dst, dstOff, n);
    int[] mirror = ((CudaTensors.Ints) dst).mirror;
    transposes.invalidate(mirror);
    System.arraycopy(src, srcOff, mirror, dstOff, n);
    if (n == 0) {
      return;
    }
    current();
    staged.upload(src, srcOff, n, d);
  }

  @Override
  public void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n) {
    CUdeviceptr s = at(src, srcOff, n);
    if (n == 0) {
      return;
    }
    current();
    staged.endGroup();
    CudaDriver.check(
        "cuMemcpyDtoH",
        JCudaDriver.cuMemcpyDtoH(Pointer.to(dst).withByteOffset(4L * dstOff), s, 4L * n));
  }

  @Override
  public void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n) {
    CUdeviceptr s = at(src, srcOff, n);
    if (n == 0) {
      return;
    }
    current();
    staged.endGroup();
    CudaDriver.check(
        "cuMemcpyDtoH",
        JCudaDriver.cuMemcpyDtoH(Pointer.to(dst).withByteOffset(4L * dstOff), s, 4L * n));
  }

  /** Page-locked host memory ({@code cuMemHostAlloc}) for DMA transfers. */
  @Override
  public HostFloats allocHostFloats(int n) {
    current();
    return new PinnedHostFloats(this, n);
  }

  /** Device to pinned host, after the work queued before it. */
  @Override
  public void download(FloatTensor src, int srcOff, HostFloats dst, int dstOff, int n) {
    CUdeviceptr s = at(src, srcOff, n);
    Pointer h = pinned(dst).at(dstOff, n);
    if (n == 0) {
      return;
    }
    current();
    staged.endGroup();
    CudaDriver.check("cuMemcpyDtoHAsync", JCudaDriver.cuMemcpyDtoHAsync(h, s, 4L * n, stream));
    CudaDriver.check("cuStreamSynchronize", JCudaDriver.cuStreamSynchronize(stream));
  }

  /**
   * Pinned host to device on the compute stream, so the operations after it see the data; the
   * buffer must not be rewritten before the next read-back (which waits for the copy).
   */
  @Override
  public void upload(HostFloats src, int srcOff, FloatTensor dst, int dstOff, int n) {
    CUdeviceptr d = at(dst, dstOff, n);
    Pointer h = pinned(src).at(srcOff, n);
    if (n == 0) {
      return;
    }
    current();
    CudaDriver.check("cuMemcpyHtoDAsync", JCudaDriver.cuMemcpyHtoDAsync(d, h, 4L * n, stream));
  }

  private PinnedHostFloats pinned(HostFloats h) {
    if (h instanceof PinnedHostFloats p && p.owner() == this) {
      return p;
    }
    throw new IllegalArgumentException(
        "a host buffer not allocated by " + name() + " was passed to it: " + h);
  }

  /** Feature-cache pages in mapped pinned host memory ({@link PinnedFeaturePages}). */
  @Override
  public io.fanout.tensor.PagedFeatureRows pagedFeatureRows(io.fanout.store.FeatureParams params) {
    current();
    return new PinnedFeaturePages(this, params, PinnedFeaturePages.PAGE_BYTES);
  }

  /** The store's f32 rows mapped into the device's address space ({@link ZeroCopyFeatures}). */
  @Override
  public FeatureRows mapFeatureRows(io.fanout.graph.GraphStore store) {
    current();
    return ZeroCopyFeatures.open(this, store);
  }

  // ---- small element-wise operations ----

  @Override
  public void zero(FloatTensor x, int off, int n) {
    CUdeviceptr p = at(x, off, n);
    if (n > 0) {
      current();
      CudaDriver.check("cuMemsetD32Async", JCudaDriver.cuMemsetD32Async(p, 0, n, stream));
    }
  }

  @Override
  public void copy(FloatTensor src, int srcOff, FloatTensor dst, int dstOff, int n) {
    CUdeviceptr s = at(src, srcOff, n);
    CUdeviceptr d = at(dst, dstOff, n);
    if (n > 0) {
      current();
      CudaDriver.check("cuMemcpyDtoDAsync", JCudaDriver.cuMemcpyDtoDAsync(d, s, 4L * n, stream));
    }
  }

  @Override
  public void copy2d(
      int rows,
      int width,
      FloatTensor src,
      int srcOff,
      int srcStride,
      FloatTensor dst,
      int dstOff,
      int dstStride) {
    if (rows == 0 || width == 0) {
      return;
    }
    long span = (long) (rows - 1);
    CUdeviceptr s = at(src, srcOff, span * srcStride + width);
    CUdeviceptr d = at(dst, dstOff, span * dstStride + width);
    launch(
        "copy_2d",
        (long) rows * width,
        new KernelArgs().i(rows).i(width).p(s).i(srcStride).p(d).i(dstStride));
  }

  @Override
  public void axpy(int n, float alpha, FloatTensor x, int xOff, FloatTensor y, int yOff) {
    CUdeviceptr px = at(x, xOff, n);
    CUdeviceptr py = at(y, yOff, n);
    launch("axpy", n, new KernelArgs().l(n).f(alpha).p(px).p(py));
  }

  @Override
  public void scale(int n, float alpha, FloatTensor x, int off) {
    CUdeviceptr p = at(x, off, n);
    launch("scale", n, new KernelArgs().p(p).l(n).f(alpha));
  }

  // ---- dense algebra ----

  @Override
  public void gemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      FloatTensor a,
      int aOff,
      FloatTensor b,
      int bOff,
      float beta,
      FloatTensor c,
      int cOff) {
    CUdeviceptr pa = at(a, aOff, (long) m * k);
    CUdeviceptr pb = at(b, bOff, (long) k * n);
    CUdeviceptr pc = at(c, cOff, (long) m * n);
    if (m == 0 || n == 0) {
      return;
    }
    current();
    if (cublas != null) {
      cublas.gemm(transA, transB, m, n, k, alpha, pa, pb, beta, pc);
      return;
    }
    int splits = SplitK.slices(m, n, k, multiprocessors);
    if (splits == 1) {
      sgemm(transA, transB, m, n, k, alpha, pa, pb, beta, pc, k, 1);
      return;
    }
    int kc = SplitK.sliceLength(k, splits);
    int parts = (k + kc - 1) / kc;
    long mn = (long) m * n;
    DevicePool.Lease<CUdeviceptr> w = pool.acquire(4L * parts * mn);
    try {
      sgemm(transA, transB, m, n, k, 1f, pa, pb, 0f, w.ptr(), kc, parts);
      launch("sgemm_reduce", mn, new KernelArgs().i(parts).l(mn).f(alpha).p(w.ptr()).f(beta).p(pc));
    } finally {
      pool.release(w); // stream order: a later lease of this buffer runs after the reduce
    }
  }

  private void sgemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      CUdeviceptr pa,
      CUdeviceptr pb,
      float beta,
      CUdeviceptr pc,
      int kc,
      int slices) {
    CUfunction f = kernels.get("sgemm");
    KernelArgs args =
        new KernelArgs()
            .i(transA ? 1 : 0)
            .i(transB ? 1 : 0)
            .i(m)
            .i(n)
            .i(k)
            .f(alpha)
            .p(pa)
            .p(pb)
            .f(beta)
            .p(pc)
            .i(kc);
    kernels.checkArgs("sgemm", args);
    if (kernelTimes != null) {
      kernelTimes.start(slices > 1 ? "sgemm(split k)" : "sgemm", stream);
    }
    CudaDriver.check(
        "cuLaunchKernel(sgemm)",
        JCudaDriver.cuLaunchKernel(
            f, (n + 63) / 64, (m + 63) / 64, slices, THREADS, 1, 1, 0, stream, args.build(), null));
    if (kernelTimes != null) {
      kernelTimes.end(stream);
    }
  }

  @Override
  public void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff) {
    CUdeviceptr px = at(x, xOff, (long) rows * cols);
    CUdeviceptr pb = at(bias, bOff, cols);
    launch("add_bias", (long) rows * cols, new KernelArgs().p(px).l(rows).i(cols).p(pb));
  }

  @Override
  public void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff) {
    CUdeviceptr pd = at(dy, dyOff, (long) rows * cols);
    CUdeviceptr pg = at(grad, gOff, cols);
    if (rows <= BIAS_GRAD_CHUNK) {
      launchExact("bias_grad", cols, new KernelArgs().p(pd).l(rows).i(cols).p(pg));
      return;
    }
    int chunk = Math.max(BIAS_GRAD_CHUNK, (int) ((rows + 65_534L) / 65_535));
    int parts = (int) ((rows + (long) chunk - 1) / chunk);
    DevicePool.Lease<CUdeviceptr> w = pool.acquire(4L * parts * cols);
    try {
      KernelArgs args = new KernelArgs().p(pd).l(rows).i(cols).i(chunk).p(w.ptr());
      launchGrid2("bias_grad_partial", (cols + THREADS - 1) / THREADS, parts, args);
      launchExact("bias_grad_sum", cols, new KernelArgs().p(w.ptr()).i(parts).i(cols).p(pg));
    } finally {
      pool.release(w); // stream order: a later lease of this buffer runs after the sum
    }
  }

  @Override
  public void activate(Activation act, FloatTensor x, int off, int n) {
    CUdeviceptr p = at(x, off, n);
    if (act != Activation.NONE) {
      launch("activate", n, new KernelArgs().i(act.ordinal()).p(p).l(n));
    }
  }

  @Override
  public void activateBackward(
      Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n) {
    CUdeviceptr py = at(y, yOff, n);
    CUdeviceptr pd = at(dy, dyOff, n);
    if (act != Activation.NONE) {
      launch("activate_backward", n, new KernelArgs().i(act.ordinal()).p(py).p(pd).l(n));
    }
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key) {
    CUdeviceptr px = at(x, off, n);
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    launch("dropout", n, new KernelArgs().p(px).l(n).f(p).f(scale).l(key));
  }

  @Override
  public void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key) {
    if (p <= 0f || rows == 0) {
      return;
    }
    float scale = 1f / (1f - p);
    launch(
        "dropout_csr",
        rows,
        new KernelArgs()
            .p(at(ptr, 0, rows + 1L))
            .p(at(col, 0, col.length()))
            .p(at(val, 0, val.length()))
            .i(rows)
            .i(cols)
            .f(p)
            .f(scale)
            .l(key));
  }

  // ---- graph operations ----

  @Override
  public void aggregate(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor src,
      int srcOff,
      int cols,
      FloatTensor out,
      int outOff) {
    CUdeviceptr pp = at(indptr, indptrOff, rows + 1L);
    CUdeviceptr pi = at(indices, indicesOff, indices.length() - (long) indicesOff);
    CUdeviceptr ps = at(src, srcOff, src.length() - (long) srcOff);
    CUdeviceptr po = at(out, outOff, (long) rows * cols);
    launch(
        "aggregate",
        (long) rows * cols,
        new KernelArgs()
            .i(mode == Aggregation.MEAN ? 1 : 0)
            .p(pp)
            .p(pi)
            .i(rows)
            .i(selfWeight)
            .p(ps)
            .i(cols)
            .p(po));
  }

  @Override
  public void prepareAggregateBackward(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    at(indptr, indptrOff, rows + 1L);
    transposes.prepare(transposeKey(indptr, indptrOff, indices, indicesOff, rows, selfWeight));
  }

  /** The transpose that {@code aggregateBackward} with these arguments gathers over. */
  private TransposeAhead.Key transposeKey(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    return new TransposeAhead.Key(
        ints(indptr).mirror,
        indptrOff,
        ints(indices).mirror,
        indicesOff,
        rows,
        selfWeight != 0 ? rows : 0);
  }

  @Override
  public void aggregateBackward(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor dOut,
      int dOutOff,
      int cols,
      FloatTensor dSrc,
      int dSrcOff) {
    CUdeviceptr pp = at(indptr, indptrOff, rows + 1L);
    CUdeviceptr pd = at(dOut, dOutOff, (long) rows * cols);
    TransposedCsr t =
        transposes.take(transposeKey(indptr, indptrOff, indices, indicesOff, rows, selfWeight));
    CUdeviceptr ps = at(dSrc, dSrcOff, (long) t.srcRows() * cols);
    DevicePool.Lease<CUdeviceptr> tl = uploadTemp(t);
    try {
      launch(
          "aggregate_backward",
          (long) t.srcRows() * cols,
          new KernelArgs()
              .i(mode == Aggregation.MEAN ? 1 : 0)
              .p(pp)
              .i(rows)
              .i(selfWeight)
              .p(tl.ptr())
              .p(tl.ptr().withByteOffset(4L * t.dstOffset()))
              .i(t.srcRows())
              .p(pd)
              .i(cols)
              .p(ps));
    } finally {
      pool.release(tl);
    }
  }

  private CudaTensors.Ints ints(IntTensor t) {
    base(t);
    return (CudaTensors.Ints) t;
  }

  /**
   * Uploads {@code t}'s packed arrays into a pooled buffer released by the caller after queuing its
   * use, and hands {@code t}'s host array back for reuse (the upload copied it).
   */
  private DevicePool.Lease<CUdeviceptr> uploadTemp(TransposedCsr t) {
    current();
    int n = t.packedLength();
    DevicePool.Lease<CUdeviceptr> l = pool.acquire(4L * Math.max(n, 1));
    try {
      staged.upload(t.packed(), 0, n, l.ptr());
    } catch (RuntimeException e) {
      pool.release(l);
      throw e;
    }
    transposes.release(t);
    return l;
  }

  @Override
  public void spmm(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor b,
      int bOff,
      int n,
      float beta,
      FloatTensor c,
      int cOff) {
    CUdeviceptr pc = at(c, cOff, (long) rows * n);
    launch(
        "spmm",
        (long) rows * n,
        new KernelArgs()
            .p(at(ptr, 0, rows + 1L))
            .p(at(col, 0, col.length()))
            .p(at(val, 0, val.length()))
            .i(rows)
            .p(at(b, bOff, b.length() - (long) bOff))
            .i(n)
            .f(beta)
            .p(pc));
  }

  @Override
  public void spmmTransposed(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor dy,
      int dyOff,
      int n,
      FloatTensor g,
      int gOff) {
    CUdeviceptr pd = at(dy, dyOff, (long) rows * n);
    TransposedCsr t = transposes.take(transposeKey(ptr, 0, col, 0, rows, 0));
    CUdeviceptr pg = at(g, gOff, (long) t.srcRows() * n);
    DevicePool.Lease<CUdeviceptr> tl = uploadTemp(t);
    try {
      launch(
          "spmm_transposed",
          (long) t.srcRows() * n,
          new KernelArgs()
              .p(tl.ptr())
              .p(tl.ptr().withByteOffset(4L * t.dstOffset()))
              .p(tl.ptr().withByteOffset(4L * t.posOffset()))
              .p(at(val, 0, val.length()))
              .i(t.srcRows())
              .p(pd)
              .i(n)
              .p(pg));
    } finally {
      pool.release(tl);
    }
  }

  // ---- loss, metrics, optimizer ----

  @Override
  public double softmaxCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    long n = (long) rows * classes;
    CUdeviceptr pl = at(logits, 0, n);
    CUdeviceptr pp = at(probs, 0, n);
    CUdeviceptr pd = dLogits == null ? null : at(dLogits, 0, n);
    CUdeviceptr py = at(labels, 0, rows);
    current();
    DevicePool.Lease<CUdeviceptr> rowLoss = pool.acquire(8L * Math.max(rows, 1) + 8);
    try {
      CUdeviceptr total = rowLoss.ptr().withByteOffset(8L * Math.max(rows, 1));
      if (rows > 0) {
        launchExact(
            "softmax_xent",
            rows,
            new KernelArgs().p(pl).i(rows).i(classes).p(py).p(pp).p(pd).f(scale).p(rowLoss.ptr()));
      }
      launchOneBlock("sum_fixed", new KernelArgs().p(rowLoss.ptr()).l(rows).p(total));
      double[] out = new double[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(out), total, 8));
      return out[0];
    } finally {
      pool.release(rowLoss);
    }
  }

  @Override
  public int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels) {
    CUdeviceptr ps = at(scores, 0, (long) rows * classes);
    CUdeviceptr py = at(labels, 0, rows);
    current();
    DevicePool.Lease<CUdeviceptr> out = pool.acquire(4);
    try {
      launchOneBlock("count_correct", new KernelArgs().p(ps).i(rows).i(classes).p(py).p(out.ptr()));
      int[] h = new int[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(h), out.ptr(), 4));
      return h[0];
    } finally {
      pool.release(out);
    }
  }

  @Override
  public void adam(
      FloatTensor params,
      FloatTensor grads,
      FloatTensor m,
      FloatTensor v,
      int n,
      float lr,
      float beta1,
      float beta2,
      float eps,
      float weightDecay,
      long step) {
    double c1 = 1.0 - Math.pow(beta1, step);
    double c2 = 1.0 - Math.pow(beta2, step);
    float stepSize = (float) (lr / c1);
    float vCorr = (float) (1.0 / Math.sqrt(c2));
    launch(
        "adam",
        n,
        new KernelArgs()
            .p(at(params, 0, n))
            .p(at(grads, 0, n))
            .p(at(m, 0, n))
            .p(at(v, 0, n))
            .l(n)
            .f(beta1)
            .f(beta2)
            .f(eps)
            .f(weightDecay)
            .f(stepSize)
            .f(vCorr));
  }

  @Override
  public void sync() {
    current();
    staged.endGroup();
    CudaDriver.check("cuStreamSynchronize", JCudaDriver.cuStreamSynchronize(stream));
  }

  // ---- launches ----

  /** The device address of {@code t[off .. off+n)}, for kernels outside this class. */
  CUdeviceptr pointer(Tensor t, int off, long n) {
    return at(t, off, n);
  }

  /** A grid-stride kernel over {@code n} elements. */
  void launch(String kernel, long n, KernelArgs args) {
    if (n <= 0) {
      return;
    }
    int blocks = (int) Math.min((n + THREADS - 1) / THREADS, MAX_BLOCKS);
    launchGrid(kernel, blocks, args);
  }

  /** A kernel with one thread per item and no grid-stride loop. */
  private void launchExact(String kernel, long n, KernelArgs args) {
    if (n <= 0) {
      return;
    }
    launchGrid(kernel, (int) ((n + THREADS - 1) / THREADS), args);
  }

  private void launchOneBlock(String kernel, KernelArgs args) {
    launchGrid(kernel, 1, args);
  }

  private void launchGrid(String kernel, int blocks, KernelArgs args) {
    launchGrid2(kernel, blocks, 1, args);
  }

  private void launchGrid2(String kernel, int blocksX, int blocksY, KernelArgs args) {
    kernels.checkArgs(kernel, args);
    current();
    if (kernelTimes != null) {
      kernelTimes.start(kernel, stream);
    }
    CudaDriver.check(
        "cuLaunchKernel(" + kernel + ")",
        JCudaDriver.cuLaunchKernel(
            kernels.get(kernel),
            blocksX,
            blocksY,
            1,
            THREADS,
            1,
            1,
            0,
            stream,
            args.build(),
            null));
    if (kernelTimes != null) {
      kernelTimes.end(stream);
    }
  }

  /**
   * Waits for the stream, then frees the kernels, cuBLAS, the pool's cache and the stream and
   * releases the primary context, each step even when one before it failed. Tensors still allocated
   * are not freed here ({@link DevicePool#checkNoLeaks} reports them in tests).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    NativeCleanup c = new NativeCleanup();
    c.run("cuCtxSetCurrent", () -> JCudaDriver.cuCtxSetCurrent(context));
    c.run("cuStreamSynchronize", () -> JCudaDriver.cuStreamSynchronize(stream));
    if (kernelTimes != null) {
      c.close(kernelTimes);
    }
    c.close(staged);
    c.close(transposes);
    c.close(cublas);
    c.close(kernels);
    c.close(pool);
    c.run("cuStreamDestroy", () -> JCudaDriver.cuStreamDestroy(stream));
    c.run("cuDevicePrimaryCtxRelease", () -> JCudaDriver.cuDevicePrimaryCtxRelease(device));
    c.rethrow();
  }
}
