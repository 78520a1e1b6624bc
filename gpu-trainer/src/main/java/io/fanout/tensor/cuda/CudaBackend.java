package io.fanout.tensor.cuda;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.AttentionHeads;
import io.fanout.tensor.AttentionInputs;
import io.fanout.tensor.AttentionResidual;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.HostFloats;
import io.fanout.tensor.HostRowDecoder;
import io.fanout.tensor.HostRowGather;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.LossReadback;
import io.fanout.tensor.MatmulPrecision;
import io.fanout.tensor.PagedFeatureRows;
import io.fanout.tensor.RowEncoding;
import io.fanout.tensor.RowFiles;
import io.fanout.tensor.Tensor;
import io.fanout.tensor.TransposeAhead;
import io.fanout.tensor.TransposedCsr;
import java.util.Map;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The tensor backend on one CUDA device, through JCuda's driver API: tensors are device buffers
 * from a {@link DevicePool}, operations are the kernels of {@link PtxModules} (dense products
 * through the machine's cuBLAS when a libcublas loads, else the own tiled SGEMM), all queued in
 * order on one compute stream.
 *
 * <p>Host memory is touched only by {@link #upload}, {@link #download} and the 8- or 4-byte
 * read-backs of the loss and the correct count (a training step's are copied back asynchronously,
 * {@link LossReadbacks}, and read after the next step is queued). Uploads are overlapped ({@link
 * StagedUploads}): the host range goes into pinned memory, a copy stream moves it to the device
 * while the compute stream still runs the previous batch, and the compute stream picks it up after
 * its earlier work, so a tensor the previous batch still reads is never overwritten early.
 * Read-backs are synchronous copies on the legacy default stream, ordered after the compute
 * stream's work (a blocking stream). Freed tensors return to the pool; a buffer is reused only by
 * work queued on the compute stream after it was freed, which runs after its last use.
 *
 * <p>Deterministic and without float atomics: every output element is computed by one thread in a
 * fixed order. The backward of aggregation and of spmm gathers over a transposed CSR built on the
 * host ({@link TransposedCsr}) from the int tensors' host mirrors; after {@link
 * #prepareAggregateBackward} on a helper thread while the forward runs ({@link TransposeAhead}).
 */
public final class CudaBackend implements io.fanout.tensor.Backend, AutoCloseable {
  /**
   * Rows per chunk of the chunked bias gradient (bias.cu), more when a matrix has over 65,535 such
   * chunks (the grid's y limit); matrices of at most this many rows are reduced in plain ascending
   * row order, as on the CPU.
   */
  static final int BIAS_GRAD_CHUNK = 512;

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
  private final CudaLaunches launches;
  private final CudaDenseOps dense;
  private final CudaGraphOps graph;
  private final CudaLossOps loss;
  private final CudaAttentionOps attention;
  private final CudaTransfers transfers;
  private final LossReadbacks readbacks;
  private MatmulPrecision precision = MatmulPrecision.FP32;

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
    CudaDeviceSetup s = CudaDeviceSetup.open(this.ordinal, device, context, stream, this::current);
    deviceName = s.deviceName();
    multiprocessors = s.multiprocessors();
    kernels = s.kernels();
    cublas = s.cublas();
    staged = s.staged();
    pool = CudaDeviceSetup.devicePool();
    launches = new CudaLaunches(kernels, stream, kernelTimes, this::current);
    dense = new CudaDenseOps(this, launches, pool, cublas, multiprocessors);
    graph = new CudaGraphOps(this, launches, pool, staged, transposes);
    readbacks = new LossReadbacks(stream);
    loss = new CudaLossOps(this, launches, pool, staged, readbacks);
    attention = new CudaAttentionOps(this, launches, pool, staged, transposes);
    transfers = new CudaTransfers(this, stream, staged, transposes);
  }

  @Override
  public String name() {
    return "cuda"
        + ordinal
        + "("
        + deviceName
        + ", "
        + (cublas != null ? "cuBLAS" : "sgemm")
        + (precision == MatmulPrecision.FP32 ? "" : ", " + precision.id())
        + ")";
  }

  /**
   * FP32 always; TF32 and BF16 through cuBLAS ({@code cublasGemmEx}), refused with the own SGEMM.
   */
  @Override
  public void matmulPrecision(MatmulPrecision p) {
    if (cublas == null) {
      if (p != MatmulPrecision.FP32) {
        throw new io.fanout.store.InvalidInputException(
            "--precision "
                + p.id()
                + " needs cuBLAS, and "
                + name()
                + " runs the own SGEMM kernel (see the log for why cuBLAS did not load); pass"
                + " --precision fp32");
      }
      return;
    }
    cublas.precision(p);
    precision = p;
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
    transfers.upload(src, srcOff, dst, dstOff, n);
  }

  @Override
  public void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n) {
    transfers.upload(src, srcOff, dst, dstOff, n);
  }

  @Override
  public void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n) {
    transfers.download(src, srcOff, dst, dstOff, n);
  }

  @Override
  public void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n) {
    transfers.download(src, srcOff, dst, dstOff, n);
  }

  /** Device to pinned host, after the work queued before it. */
  @Override
  public void download(FloatTensor src, int srcOff, HostFloats dst, int dstOff, int n) {
    transfers.download(src, srcOff, dst, dstOff, n);
  }

  /**
   * Pinned host to device on the compute stream, so the operations after it see the data; the
   * buffer must not be rewritten before the next read-back (which waits for the copy).
   */
  @Override
  public void upload(HostFloats src, int srcOff, FloatTensor dst, int dstOff, int n) {
    transfers.upload(src, srcOff, dst, dstOff, n);
  }

  /** Page-locked host memory ({@code cuMemHostAlloc}) for DMA transfers. */
  @Override
  public HostFloats allocHostFloats(int n) {
    current();
    return new PinnedHostFloats(this, n);
  }

  /** Feature-cache pages in mapped pinned host memory ({@link PinnedFeaturePages}). */
  @Override
  public PagedFeatureRows pagedFeatureRows(RowEncoding encoding, HostRowDecoder decoder) {
    current();
    return new PinnedFeaturePages(this, encoding, PinnedFeaturePages.PAGE_BYTES);
  }

  /**
   * The files' rows mapped into the device's address space ({@link KernelFeatureRows}); the kernels
   * decode them, so {@code host} is not used.
   */
  @Override
  public FeatureRows mapFeatureRows(RowFiles files, HostRowGather host) {
    current();
    return KernelFeatureRows.open(this, files);
  }

  /** The files' encoded rows uploaded once into device memory ({@link KernelFeatureRows}). */
  @Override
  public FeatureRows residentFeatureRows(RowFiles files, HostRowGather host) {
    current();
    return KernelFeatureRows.resident(this, files);
  }

  /** The driver's free bytes on this device ({@code cuMemGetInfo}). */
  @Override
  public long freeDeviceBytes() {
    current();
    long[] free = new long[1];
    long[] total = new long[1];
    CudaDriver.check("cuMemGetInfo", JCudaDriver.cuMemGetInfo(free, total));
    return free[0];
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

  /** One thread per row ({@code rownorm.cu}), in the host's order and rounding. */
  @Override
  public void normalizeRows(FloatTensor x, int off, int rows, int dim, boolean l1) {
    CUdeviceptr p = at(x, off, (long) rows * dim);
    if (rows > 0) {
      launch("normalize_rows", rows, new KernelArgs().p(p).i(rows).i(dim).i(l1 ? 1 : 0));
    }
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
    dense.gemm(transA, transB, m, n, k, alpha, a, aOff, b, bOff, beta, c, cOff);
  }

  @Override
  public void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff) {
    dense.addBias(x, xOff, rows, cols, bias, bOff);
  }

  @Override
  public void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff) {
    dense.biasGrad(dy, dyOff, rows, cols, grad, gOff);
  }

  @Override
  public void activate(Activation act, FloatTensor x, int off, int n) {
    dense.activate(act, x, off, n);
  }

  @Override
  public void activateBackward(
      Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n) {
    dense.activateBackward(act, y, yOff, dy, dyOff, n);
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key) {
    dense.dropout(x, off, n, p, key);
  }

  @Override
  public void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key) {
    dense.dropoutCsr(ptr, col, val, rows, cols, p, key);
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
    graph.aggregate(
        mode,
        indptr,
        indptrOff,
        indices,
        indicesOff,
        rows,
        selfWeight,
        src,
        srcOff,
        cols,
        out,
        outOff);
  }

  @Override
  public void prepareAggregateBackward(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    graph.prepareAggregateBackward(indptr, indptrOff, indices, indicesOff, rows, selfWeight);
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
    graph.aggregateBackward(
        mode,
        indptr,
        indptrOff,
        indices,
        indicesOff,
        rows,
        selfWeight,
        dOut,
        dOutOff,
        cols,
        dSrc,
        dSrcOff);
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
    graph.spmm(ptr, col, val, rows, b, bOff, n, beta, c, cOff);
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
    graph.spmmTransposed(ptr, col, val, rows, dy, dyOff, n, g, gOff);
  }

  /** {@code t} as this backend's int tensor, checked. */
  CudaTensors.Ints ints(IntTensor t) {
    base(t);
    return (CudaTensors.Ints) t;
  }

  // ---- loss, metrics, optimizer ----

  // ---- attention ----

  @Override
  public void headScores(
      int rows, int heads, int headDim, FloatView z, FloatView a, FloatView scores) {
    attention.headScores(rows, heads, headDim, z, a, scores);
  }

  @Override
  public void headScoresBackward(
      int rows,
      int heads,
      int headDim,
      FloatView z,
      FloatView a,
      FloatView dScores,
      FloatView dz,
      FloatView da) {
    attention.headScoresBackward(rows, heads, headDim, z, a, dScores, dz, da);
  }

  @Override
  public void attentionAggregate(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView out) {
    attention.aggregate(e, h, in, res, alpha, out);
  }

  @Override
  public void attentionAggregateBackward(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView dOut,
      AttentionInputs dIn) {
    attention.aggregateBackward(e, h, in, res, alpha, dOut, dIn);
  }

  @Override
  public void attentionResidualWeights(
      AttentionEdges e, int heads, FloatView prev, IntTensor prevSlots, FloatView out) {
    attention.residualWeights(e, heads, prev, prevSlots, out);
  }

  @Override
  public void l2NormalizeRows(FloatView x, int rows, int dim, float eps, FloatView y) {
    attention.l2NormalizeRows(x, rows, dim, eps, y);
  }

  @Override
  public void l2NormalizeRowsBackward(
      FloatView x, FloatView y, int rows, int dim, float eps, FloatView dy, FloatView dx) {
    attention.l2NormalizeRowsBackward(x, y, rows, dim, eps, dy, dx);
  }

  @Override
  public double sigmoidCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    return loss.sigmoidCrossEntropy(logits, rows, classes, targets, probs, dLogits, scale);
  }

  @Override
  public int countExactMatches(FloatTensor probs, int rows, int classes, FloatTensor targets) {
    return loss.countExactMatches(probs, rows, classes, targets);
  }

  @Override
  public LossReadback sigmoidCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    return loss.sigmoidCrossEntropyDeferred(logits, rows, classes, targets, probs, dLogits, scale);
  }

  @Override
  public double softmaxCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    return loss.softmaxCrossEntropy(logits, rows, classes, labels, probs, dLogits, scale);
  }

  @Override
  public int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels) {
    return loss.countCorrect(scores, rows, classes, labels);
  }

  @Override
  public LossReadback softmaxCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    return loss.softmaxCrossEntropyDeferred(logits, rows, classes, labels, probs, dLogits, scale);
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
    loss.adam(params, grads, m, v, n, lr, beta1, beta2, eps, weightDecay, step);
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

  /** A grid-stride kernel over {@code n} elements, for kernels outside this class. */
  void launch(String kernel, long n, KernelArgs args) {
    launches.launch(kernel, n, args);
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
    c.close(readbacks);
    c.close(transposes);
    c.close(cublas);
    c.close(kernels);
    c.close(pool);
    c.run("cuStreamDestroy", () -> JCudaDriver.cuStreamDestroy(stream));
    c.run("cuDevicePrimaryCtxRelease", () -> JCudaDriver.cuDevicePrimaryCtxRelease(device));
    c.rethrow();
  }
}
