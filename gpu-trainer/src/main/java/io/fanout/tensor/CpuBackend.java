package io.fanout.tensor;

import java.util.Arrays;
import java.util.logging.Logger;

/**
 * The CPU backend: its tensors wrap host arrays, so uploads and downloads are array copies and
 * every operation runs in place on the arrays ({@link CpuKernels}) at the cost of the plain array
 * code. Tensors of any {@code CpuBackend} (and those from {@link #wrap}) are accepted by all of
 * them.
 */
public final class CpuBackend implements Backend {
  private static final Logger LOG = Logger.getLogger(CpuBackend.class.getName());

  static {
    LOG.info("BLAS implementation: " + blasName());
  }

  private final CpuGemm.ColumnMajorSgemm sgemm;

  /** A backend whose dense products use the fastest BLAS found ({@link #blasName()}). */
  public CpuBackend() {
    this(CpuGemm.FASTEST);
  }

  private CpuBackend(CpuGemm.ColumnMajorSgemm sgemm) {
    this.sgemm = sgemm;
  }

  /**
   * A backend whose dense products use the reference BLAS compiled to plain Java (F2J): slower than
   * native BLAS, but its results are the same bits on every CPU. Native OpenBLAS picks kernels by
   * CPU model (AVX2, AVX-512, ...), each with its own summation order, so a model trained with
   * {@link #CpuBackend()} is bit-identical across threads, tasks and executors of one machine type,
   * not across machine types. Golden tests that pin parameter hashes use this backend.
   */
  public static CpuBackend portable() {
    return new CpuBackend(CpuGemm.REFERENCE);
  }

  /**
   * A new backend with this one's dense products (the same BLAS, so the same bits), for a second
   * thread: a backend instance is used by one thread at a time.
   */
  public CpuBackend sibling() {
    return new CpuBackend(sgemm);
  }

  /** The simple class name of the default BLAS, e.g. {@code JNIBLAS} or {@code VectorBLAS}. */
  public static String blasName() {
    return CpuGemm.BLAS_IMPL.getClass().getSimpleName();
  }

  /**
   * The row softmax of host logits ({@code rows x classes}) into {@code probs}, with the same
   * arithmetic as {@link #softmaxCrossEntropy}; for outputs already read back (predictions).
   */
  public static void softmax(float[] logits, int rows, int classes, float[] probs) {
    int[] none = new int[rows];
    Arrays.fill(none, -1);
    CpuKernels.softmaxCrossEntropy(logits, rows, classes, none, probs, null, 0f);
  }

  /** Threads the CPU backend splits large operations over ({@code -Dfanout.cpu.threads}). */
  public static int threads() {
    return ColumnParallel.THREADS;
  }

  @Override
  public String name() {
    return "cpu(" + (sgemm == CpuGemm.REFERENCE ? "reference F2J BLAS" : blasName()) + ")";
  }

  /** A host float tensor. */
  static final class Floats implements FloatTensor {
    private final Backend owner;
    float[] a;

    Floats(Backend owner, float[] a) {
      this.owner = owner;
      this.a = a;
    }

    @Override
    public int length() {
      return a == null ? 0 : a.length;
    }

    @Override
    public Backend owner() {
      return owner;
    }
  }

  /** A host int tensor. */
  static final class Ints implements IntTensor {
    private final Backend owner;
    int[] a;

    Ints(Backend owner, int[] a) {
      this.owner = owner;
      this.a = a;
    }

    @Override
    public int length() {
      return a == null ? 0 : a.length;
    }

    @Override
    public Backend owner() {
      return owner;
    }
  }

  /**
   * A float tensor of this backend that aliases {@code a}: operations write through to the array.
   * For tests and host-side callers that already own the data; training code uploads instead.
   */
  public FloatTensor wrap(float[] a) {
    return new Floats(this, a);
  }

  /** An int tensor of this backend that aliases {@code a}. */
  public IntTensor wrap(int[] a) {
    return new Ints(this, a);
  }

  static float[] f(FloatTensor t) {
    if (t instanceof Floats x && x.a != null) {
      return x.a;
    }
    throw foreign(t);
  }

  static int[] i(IntTensor t) {
    if (t instanceof Ints x && x.a != null) {
      return x.a;
    }
    throw foreign(t);
  }

  private static IllegalArgumentException foreign(Tensor t) {
    if (t == null) {
      return new IllegalArgumentException("tensor is null");
    }
    if (t instanceof Floats || t instanceof Ints) {
      return new IllegalArgumentException("tensor was freed");
    }
    return new IllegalArgumentException(
        "a tensor of backend " + t.owner().name() + " was passed to the CPU backend");
  }

  /** Heap pages of 64 MiB; {@link FeatureRows#gather} decodes the slots' rows. */
  @Override
  public PagedFeatureRows pagedFeatureRows(RowEncoding encoding, HostRowDecoder decoder) {
    return new HeapFeaturePages(encoding, decoder, 64L << 20);
  }

  /** The rows, read from their owner's mapping by {@link FeatureRows#gather}. */
  @Override
  public FeatureRows mapFeatureRows(RowFiles files, HostRowGather host) {
    return new MappedFeatureRows(files, host);
  }

  @Override
  public FloatTensor allocFloat(int n) {
    return new Floats(this, new float[n]);
  }

  @Override
  public IntTensor allocInt(int n) {
    return new Ints(this, new int[n]);
  }

  @Override
  public void free(Tensor t) {
    if (t instanceof Floats x) {
      x.a = null;
    } else if (t instanceof Ints x) {
      x.a = null;
    } else if (t != null) {
      throw foreign(t);
    }
  }

  @Override
  public void upload(float[] src, int srcOff, FloatTensor dst, int dstOff, int n) {
    System.arraycopy(src, srcOff, f(dst), dstOff, n);
  }

  @Override
  public void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n) {
    System.arraycopy(src, srcOff, i(dst), dstOff, n);
  }

  @Override
  public void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n) {
    System.arraycopy(f(src), srcOff, dst, dstOff, n);
  }

  @Override
  public void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n) {
    System.arraycopy(i(src), srcOff, dst, dstOff, n);
  }

  @Override
  public void zero(FloatTensor x, int off, int n) {
    Arrays.fill(f(x), off, off + n, 0f);
  }

  @Override
  public void copy(FloatTensor src, int srcOff, FloatTensor dst, int dstOff, int n) {
    System.arraycopy(f(src), srcOff, f(dst), dstOff, n);
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
    CpuKernels.copy2d(rows, width, f(src), srcOff, srcStride, f(dst), dstOff, dstStride);
  }

  @Override
  public void axpy(int n, float alpha, FloatTensor x, int xOff, FloatTensor y, int yOff) {
    CpuKernels.axpy(n, alpha, f(x), xOff, f(y), yOff);
  }

  @Override
  public void scale(int n, float alpha, FloatTensor x, int off) {
    CpuKernels.scale(n, alpha, f(x), off);
  }

  @Override
  public void normalizeRows(FloatTensor x, int off, int rows, int dim, boolean l1) {
    RowNorms.normalize(f(x), off, rows, dim, l1);
  }

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
    CpuGemm.gemm(sgemm, transA, transB, m, n, k, alpha, f(a), aOff, f(b), bOff, beta, f(c), cOff);
  }

  @Override
  public void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff) {
    CpuKernels.addBias(f(x), xOff, rows, cols, f(bias), bOff);
  }

  @Override
  public void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff) {
    CpuKernels.biasGrad(f(dy), dyOff, rows, cols, f(grad), gOff);
  }

  @Override
  public void activate(Activation act, FloatTensor x, int off, int n) {
    CpuKernels.activate(act, f(x), off, n);
  }

  @Override
  public void activateBackward(
      Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n) {
    CpuKernels.activateBackward(act, f(y), yOff, f(dy), dyOff, n);
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key) {
    CpuDropout.dropout(f(x), off, n, p, key);
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key, IntTensor keep) {
    float[] a = f(x);
    CpuDropout.dropout(a, off, a, off, n, p, key, keep == null ? null : i(keep));
  }

  @Override
  public void dropoutCopy(
      FloatTensor src,
      int srcOff,
      FloatTensor dst,
      int dstOff,
      int n,
      float p,
      long key,
      IntTensor keep) {
    CpuDropout.dropout(f(src), srcOff, f(dst), dstOff, n, p, key, keep == null ? null : i(keep));
  }

  @Override
  public void dropoutBackward(FloatTensor g, int off, int n, float p, long key, IntTensor keep) {
    if (keep == null) {
      CpuDropout.dropout(f(g), off, n, p, key);
    } else {
      CpuDropout.dropoutBackward(f(g), off, n, p, i(keep));
    }
  }

  @Override
  public void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key) {
    CpuDropout.dropoutCsr(i(ptr), i(col), f(val), rows, cols, p, key);
  }

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
    CpuGraphKernels.aggregate(
        mode,
        i(indptr),
        indptrOff,
        i(indices),
        indicesOff,
        rows,
        selfWeight,
        f(src),
        srcOff,
        cols,
        cols,
        f(out),
        outOff,
        cols);
  }

  @Override
  public boolean stridedAggregation() {
    return true;
  }

  @Override
  public void aggregateStrided(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor src,
      int srcOff,
      int srcStride,
      int cols,
      FloatTensor out,
      int outOff,
      int outStride) {
    CpuGraphKernels.aggregate(
        mode,
        i(indptr),
        indptrOff,
        i(indices),
        indicesOff,
        rows,
        selfWeight,
        f(src),
        srcOff,
        srcStride,
        cols,
        f(out),
        outOff,
        outStride);
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
    CpuGraphKernels.aggregateBackward(
        mode,
        i(indptr),
        indptrOff,
        i(indices),
        indicesOff,
        rows,
        selfWeight,
        f(dOut),
        dOutOff,
        cols,
        cols,
        f(dSrc),
        dSrcOff);
  }

  @Override
  public void aggregateBackwardStrided(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor dOut,
      int dOutOff,
      int dOutStride,
      int cols,
      FloatTensor dSrc,
      int dSrcOff) {
    CpuGraphKernels.aggregateBackward(
        mode,
        i(indptr),
        indptrOff,
        i(indices),
        indicesOff,
        rows,
        selfWeight,
        f(dOut),
        dOutOff,
        dOutStride,
        cols,
        f(dSrc),
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
    CpuGraphKernels.spmm(i(ptr), i(col), f(val), rows, f(b), bOff, n, beta, f(c), cOff);
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
    CpuGraphKernels.spmmTransposed(i(ptr), i(col), f(val), rows, f(dy), dyOff, n, f(g), gOff);
  }

  /** The host arrays of {@code e}. */
  static CpuAttentionKernels.Edges edges(AttentionEdges e) {
    return new CpuAttentionKernels.Edges(
        i(e.indptr()),
        e.indptrOff(),
        i(e.indices()),
        e.indicesOff(),
        e.relations() == null ? null : i(e.relations()),
        e.relationsOff(),
        e.relationCount(),
        e.rows(),
        e.selfLoops(),
        e.selfRelation());
  }

  private static float[] fOrNull(FloatTensor t) {
    return t == null ? null : f(t);
  }

  @Override
  public void headScores(
      int rows, int heads, int headDim, FloatView z, FloatView a, FloatView scores) {
    CpuAttentionKernels.headScores(rows, heads, headDim, z, a, scores);
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
    CpuAttentionKernels.headScoresBackward(rows, heads, headDim, z, a, dScores, dz, da);
  }

  @Override
  public void attentionAggregate(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView out) {
    CpuAttentionKernels.attentionAggregate(edges(e), h, in, res, alpha, out);
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
    CpuAttentionKernels.attentionAggregateBackward(edges(e), h, in, res, alpha, dOut, dIn);
  }

  @Override
  public void attentionResidualWeights(
      AttentionEdges e, int heads, FloatView prev, IntTensor prevSlots, FloatView out) {
    CpuAttentionKernels.attentionResidualWeights(edges(e), heads, prev, i(prevSlots), out);
  }

  @Override
  public void l2NormalizeRows(FloatView x, int rows, int dim, float eps, FloatView y) {
    L2RowNorm.forward(f(x.tensor()), x.offset(), rows, dim, eps, f(y.tensor()), y.offset());
  }

  @Override
  public void l2NormalizeRowsBackward(
      FloatView x, FloatView y, int rows, int dim, float eps, FloatView dy, FloatView dx) {
    L2RowNorm.backward(
        f(x.tensor()),
        x.offset(),
        f(y.tensor()),
        y.offset(),
        rows,
        dim,
        eps,
        f(dy.tensor()),
        dy.offset(),
        f(dx.tensor()),
        dx.offset());
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
    return SigmoidCrossEntropy.loss(
        f(logits), rows, classes, f(targets), f(probs), fOrNull(dLogits), scale);
  }

  @Override
  public int countExactMatches(FloatTensor probs, int rows, int classes, FloatTensor targets) {
    return SigmoidCrossEntropy.countExact(f(probs), rows, classes, f(targets));
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
    return CpuKernels.softmaxCrossEntropy(
        f(logits), rows, classes, i(labels), f(probs), dLogits == null ? null : f(dLogits), scale);
  }

  @Override
  public int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels) {
    return CpuKernels.countCorrect(f(scores), rows, classes, i(labels));
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
    CpuKernels.adam(f(params), f(grads), f(m), f(v), n, lr, beta1, beta2, eps, weightDecay, step);
  }
}
