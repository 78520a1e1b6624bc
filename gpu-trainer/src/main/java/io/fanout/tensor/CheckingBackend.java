package io.fanout.tensor;

import static io.fanout.tensor.CheckedTensors.range;

import io.fanout.tensor.CheckedTensors.CheckedFloat;
import io.fanout.tensor.CheckedTensors.CheckedInt;

/**
 * A checking mode of the CPU backend: its tensors stand for device buffers. They are objects apart
 * from the CPU backend's (which refuses them) and expose no host array, so host data reaches an
 * operation only through {@link #upload} and leaves only through {@link #download} and the host
 * values that {@link #softmaxCrossEntropy} and {@link #countCorrect} return. Passing any other
 * tensor (a host-wrapping {@link CpuBackend#wrap}, another backend's, a freed one) fails, as does a
 * transfer outside a tensor's bounds. It counts the bytes moved each way and the tensors alive.
 *
 * <p>It also checks release: {@link #close} fails while tensors, host buffers or feature rows it
 * handed out are still open ({@link #unclosed()}), and {@link #openBackends()} counts the instances
 * not yet closed in this JVM, so a test can check that a run released its backend.
 *
 * <p>Selected by {@code --backend cpu-checked} or {@code -Dfanout.backend=cpu-checked}; results are
 * bit-identical to {@link CpuBackend}'s.
 */
public final class CheckingBackend implements Backend {
  private static final java.util.concurrent.atomic.AtomicLong OPEN =
      new java.util.concurrent.atomic.AtomicLong();

  private final CpuBackend cpu;
  private long uploadedBytes;
  private long downloadedBytes;
  private long live;
  private long liveHost;
  private long liveRows;
  private boolean closed;

  public CheckingBackend(CpuBackend cpu) {
    this.cpu = cpu;
    OPEN.incrementAndGet();
  }

  /** Checking backends created in this JVM and not yet {@link #close closed}. */
  public static long openBackends() {
    return OPEN.get();
  }

  /** Tensors, host buffers and feature-row mappings handed out and not yet freed or closed. */
  public long unclosed() {
    return live + liveHost + liveRows;
  }

  /**
   * Closes the backend, then fails when anything it handed out is still open: a run must free its
   * tensors and close its host buffers and feature rows before its backend.
   *
   * @throws IllegalStateException naming what leaked
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    OPEN.decrementAndGet();
    if (unclosed() > 0) {
      throw new IllegalStateException(
          "checked backend closed with "
              + live
              + " tensor(s), "
              + liveHost
              + " host buffer(s) and "
              + liveRows
              + " feature-row mapping(s) still open");
    }
  }

  @Override
  public HostFloats allocHostFloats(int n) {
    HostFloats h = new CheckedHost(this, n);
    liveHost++;
    return h;
  }

  @Override
  public void download(FloatTensor src, int srcOff, HostFloats dst, int dstOff, int n) {
    range(src, srcOff, n, "download");
    cpu.download(d(src), srcOff, host(dst, dstOff, n), dstOff, n);
    downloadedBytes += 4L * n;
  }

  @Override
  public void upload(HostFloats src, int srcOff, FloatTensor dst, int dstOff, int n) {
    range(dst, dstOff, n, "upload");
    cpu.upload(host(src, srcOff, n), srcOff, d(dst), dstOff, n);
    uploadedBytes += 4L * n;
  }

  /** The array of an open host buffer of this backend holding {@code [off, off+n)}. */
  private float[] host(HostFloats h, int off, int n) {
    if (!(h instanceof CheckedHost c) || c.owner != this || !c.open) {
      throw new IllegalStateException(
          "checked backend: a host transfer got "
              + (h == null ? "null" : "a closed host buffer or one of another backend"));
    }
    if (off < 0 || n < 0 || (long) off + n > h.length()) {
      throw new IllegalStateException(
          "checked backend: host transfer of "
              + n
              + " elements at offset "
              + off
              + " outside a host buffer of "
              + h.length());
    }
    return c.inner.array();
  }

  /**
   * The store's rows read in place, as {@link CpuBackend#mapFeatureRows}; only the ids cross from
   * the host (as an upload), never the rows.
   */
  @Override
  public FeatureRows mapFeatureRows(RowFiles files, HostRowGather host) {
    return new CheckedFeatureRows(this, cpu.mapFeatureRows(files, host));
  }

  /**
   * Feature-cache pages read in place, as {@link CpuBackend#pagedFeatureRows}; only the slots cross
   * from the host (as an upload), never the rows.
   */
  @Override
  public PagedFeatureRows pagedFeatureRows(RowEncoding encoding, HostRowDecoder decoder) {
    return new CheckedFeatureRows.Paged(this, cpu.pagedFeatureRows(encoding, decoder));
  }

  /** Bytes moved host to backend and back since construction or {@link #resetTraffic()}. */
  public record Traffic(long uploadedBytes, long downloadedBytes) {}

  public Traffic traffic() {
    return new Traffic(uploadedBytes, downloadedBytes);
  }

  /** Zeroes the byte counters (e.g. at the start of a step). */
  public void resetTraffic() {
    uploadedBytes = 0;
    downloadedBytes = 0;
  }

  /** Tensors allocated and not yet freed. */
  public long liveTensors() {
    return live;
  }

  @Override
  public String name() {
    return "cpu-checked(" + CpuBackend.blasName() + ")";
  }

  /** The CPU tensor behind a live tensor of this backend. */
  FloatTensor d(FloatTensor t) {
    return CheckedTensors.unwrap(this, t);
  }

  /** The CPU tensor behind a live tensor of this backend. */
  IntTensor d(IntTensor t) {
    return CheckedTensors.unwrap(this, t);
  }

  void hostClosed() {
    liveHost--;
  }

  void rowsOpened() {
    liveRows++;
  }

  void rowsClosed() {
    liveRows--;
  }

  @Override
  public FloatTensor allocFloat(int n) {
    live++;
    return new CheckedFloat(this, cpu.allocFloat(n));
  }

  @Override
  public IntTensor allocInt(int n) {
    live++;
    return new CheckedInt(this, cpu.allocInt(n));
  }

  @Override
  public void free(Tensor t) {
    if (t instanceof CheckedFloat c && c.owner == this) {
      if (c.inner != null) {
        cpu.free(c.inner);
        c.inner = null;
        live--;
      }
    } else if (t instanceof CheckedInt c && c.owner == this) {
      if (c.inner != null) {
        cpu.free(c.inner);
        c.inner = null;
        live--;
      }
    } else {
      throw CheckedTensors.refused(t);
    }
  }

  @Override
  public void upload(float[] src, int srcOff, FloatTensor dst, int dstOff, int n) {
    range(dst, dstOff, n, "upload");
    cpu.upload(src, srcOff, d(dst), dstOff, n);
    uploadedBytes += 4L * n;
  }

  @Override
  public void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n) {
    range(dst, dstOff, n, "upload");
    cpu.upload(src, srcOff, d(dst), dstOff, n);
    uploadedBytes += 4L * n;
  }

  @Override
  public void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n) {
    range(src, srcOff, n, "download");
    cpu.download(d(src), srcOff, dst, dstOff, n);
    downloadedBytes += 4L * n;
  }

  @Override
  public void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n) {
    range(src, srcOff, n, "download");
    cpu.download(d(src), srcOff, dst, dstOff, n);
    downloadedBytes += 4L * n;
  }

  @Override
  public void zero(FloatTensor x, int off, int n) {
    range(x, off, n, "zero");
    cpu.zero(d(x), off, n);
  }

  @Override
  public void copy(FloatTensor src, int srcOff, FloatTensor dst, int dstOff, int n) {
    range(src, srcOff, n, "copy");
    range(dst, dstOff, n, "copy");
    cpu.copy(d(src), srcOff, d(dst), dstOff, n);
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
    cpu.copy2d(rows, width, d(src), srcOff, srcStride, d(dst), dstOff, dstStride);
  }

  @Override
  public void axpy(int n, float alpha, FloatTensor x, int xOff, FloatTensor y, int yOff) {
    cpu.axpy(n, alpha, d(x), xOff, d(y), yOff);
  }

  @Override
  public void scale(int n, float alpha, FloatTensor x, int off) {
    cpu.scale(n, alpha, d(x), off);
  }

  @Override
  public void normalizeRows(FloatTensor x, int off, int rows, int dim, boolean l1) {
    cpu.normalizeRows(d(x), off, rows, dim, l1);
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
    cpu.gemm(transA, transB, m, n, k, alpha, d(a), aOff, d(b), bOff, beta, d(c), cOff);
  }

  @Override
  public void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff) {
    cpu.addBias(d(x), xOff, rows, cols, d(bias), bOff);
  }

  @Override
  public void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff) {
    cpu.biasGrad(d(dy), dyOff, rows, cols, d(grad), gOff);
  }

  @Override
  public void activate(Activation act, FloatTensor x, int off, int n) {
    cpu.activate(act, d(x), off, n);
  }

  @Override
  public void activateBackward(
      Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n) {
    cpu.activateBackward(act, d(y), yOff, d(dy), dyOff, n);
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key) {
    cpu.dropout(d(x), off, n, p, key);
  }

  @Override
  public void dropout(FloatTensor x, int off, int n, float p, long key, IntTensor keep) {
    cpu.dropout(d(x), off, n, p, key, keep == null ? null : d(keep));
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
    cpu.dropoutCopy(d(src), srcOff, d(dst), dstOff, n, p, key, keep == null ? null : d(keep));
  }

  @Override
  public void dropoutBackward(FloatTensor g, int off, int n, float p, long key, IntTensor keep) {
    cpu.dropoutBackward(d(g), off, n, p, key, keep == null ? null : d(keep));
  }

  @Override
  public void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key) {
    cpu.dropoutCsr(d(ptr), d(col), d(val), rows, cols, p, key);
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
    cpu.aggregate(
        mode,
        d(indptr),
        indptrOff,
        d(indices),
        indicesOff,
        rows,
        selfWeight,
        d(src),
        srcOff,
        cols,
        d(out),
        outOff);
  }

  @Override
  public boolean stridedAggregation() {
    return cpu.stridedAggregation();
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
    cpu.aggregateStrided(
        mode,
        d(indptr),
        indptrOff,
        d(indices),
        indicesOff,
        rows,
        selfWeight,
        d(src),
        srcOff,
        srcStride,
        cols,
        d(out),
        outOff,
        outStride);
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
    cpu.aggregateBackwardStrided(
        mode,
        d(indptr),
        indptrOff,
        d(indices),
        indicesOff,
        rows,
        selfWeight,
        d(dOut),
        dOutOff,
        dOutStride,
        cols,
        d(dSrc),
        dSrcOff);
  }

  /** Checks the hint's tensors and range, as {@link #aggregateBackward} would. */
  @Override
  public void prepareAggregateBackward(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    d(indices);
    // rows + 1 offsets; a negative row count stays negative, which range refuses
    range(d(indptr), indptrOff, rows < 0 ? rows : rows + 1, "aggregate-backward offsets");
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
    cpu.aggregateBackward(
        mode,
        d(indptr),
        indptrOff,
        d(indices),
        indicesOff,
        rows,
        selfWeight,
        d(dOut),
        dOutOff,
        cols,
        d(dSrc),
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
    cpu.spmm(d(ptr), d(col), d(val), rows, d(b), bOff, n, beta, d(c), cOff);
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
    cpu.spmmTransposed(d(ptr), d(col), d(val), rows, d(dy), dyOff, n, d(g), gOff);
  }

  /** Unwraps {@code e}'s tensors into the CPU backend's. */
  private AttentionEdges unwrap(AttentionEdges e) {
    return new AttentionEdges(
        d(e.indptr()),
        e.indptrOff(),
        d(e.indices()),
        e.indicesOff(),
        e.relations() == null ? null : d(e.relations()),
        e.relationsOff(),
        e.relationCount(),
        e.rows(),
        e.edges(),
        e.selfLoops(),
        e.selfRelation());
  }

  private FloatTensor dOrNull(FloatTensor t) {
    return t == null ? null : d(t);
  }

  /** {@code v} over the CPU tensor behind its tensor; a null view stays null. */
  private FloatView d(FloatView v) {
    return v == null ? null : new FloatView(d(v.tensor()), v.offset());
  }

  /** {@code in} over the CPU tensors: the relation scores only with relations, as the CPU reads. */
  private AttentionInputs d(AttentionEdges e, AttentionInputs in) {
    return new AttentionInputs(
        d(in.dstScores()),
        d(in.srcScores()),
        e.relations() == null ? null : d(in.relScores()),
        d(in.z()));
  }

  @Override
  public void headScores(
      int rows, int heads, int headDim, FloatView z, FloatView a, FloatView scores) {
    CheckedAttention.shape(rows, heads, headDim, "head scores");
    CheckedAttention.matrix(z, rows, (long) heads * headDim, "head scores input");
    CheckedAttention.matrix(a, 1, (long) heads * headDim, "head scores vector");
    CheckedAttention.matrix(scores, rows, heads, "head scores output");
    cpu.headScores(rows, heads, headDim, d(z), d(a), d(scores));
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
    CheckedAttention.shape(rows, heads, headDim, "head scores backward");
    long hd = (long) heads * headDim;
    CheckedAttention.matrix(z, rows, hd, "head scores input");
    CheckedAttention.matrix(a, 1, hd, "head scores vector");
    CheckedAttention.matrix(dScores, rows, heads, "head scores gradient");
    if (dz != null) {
      CheckedAttention.matrix(dz, rows, hd, "head scores input gradient");
    }
    if (da != null) {
      CheckedAttention.matrix(da, 1, hd, "head scores vector gradient");
    }
    cpu.headScoresBackward(rows, heads, headDim, d(z), d(a), d(dScores), d(dz), d(da));
  }

  /**
   * Checks the operands every attention call shares: the settings, the block, the inputs {@code in}
   * (or their gradients), the weights and the {@code rows x heads * headDim} matrix {@code
   * rowsByWidth} (the output or its gradient); returns the CPU block.
   */
  private AttentionEdges checkAttention(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      FloatView alpha,
      FloatView rowsByWidth,
      String what) {
    CheckedAttention.shape(e.rows(), h.heads(), h.headDim(), what);
    if (!Float.isFinite(h.slope())) {
      throw new IllegalStateException("checked backend: " + what + " with slope " + h.slope());
    }
    if (!(h.dropout() < 1f) || Float.isNaN(h.dropout())) {
      throw new IllegalStateException("checked backend: " + what + " with dropout " + h.dropout());
    }
    AttentionEdges c = unwrap(e);
    int srcRows = CheckedAttention.edges(e, CpuBackend.edges(c));
    int heads = h.heads();
    CheckedAttention.matrix(in.dstScores(), e.rows(), heads, what + " destination scores");
    CheckedAttention.matrix(in.srcScores(), srcRows, heads, what + " source scores");
    if (e.relations() != null) {
      CheckedAttention.matrix(in.relScores(), e.relationCount(), heads, what + " relation scores");
    }
    CheckedAttention.matrix(in.z(), srcRows, h.width(), what + " source rows");
    CheckedAttention.matrix(alpha, e.slots(), heads, what + " weights");
    CheckedAttention.matrix(rowsByWidth, e.rows(), h.width(), what + " output");
    return c;
  }

  /** Checks a residual's weights ({@code slots x heads}, finite); returns it over the CPU. */
  private AttentionResidual checkResidual(
      AttentionEdges e, AttentionHeads h, AttentionResidual res, String what) {
    if (res == null) {
      return null;
    }
    CheckedAttention.matrix(res.weights(), e.slots(), h.heads(), what + " residual weights");
    return new AttentionResidual(res.beta(), d(res.weights()));
  }

  @Override
  public void attentionAggregate(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView out) {
    AttentionEdges c = checkAttention(e, h, in, alpha, out, "attention");
    AttentionResidual r = checkResidual(e, h, res, "attention");
    cpu.attentionAggregate(c, h, d(e, in), r, d(alpha), d(out));
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
    AttentionEdges c = checkAttention(e, h, in, alpha, dOut, "attention backward");
    // the gradients have the shapes of what they are the gradients of
    checkAttention(e, h, dIn, alpha, dOut, "attention backward gradients");
    AttentionResidual r = checkResidual(e, h, res, "attention backward");
    cpu.attentionAggregateBackward(c, h, d(e, in), r, d(alpha), d(dOut), d(e, dIn));
  }

  @Override
  public void attentionResidualWeights(
      AttentionEdges e, int heads, FloatView prev, IntTensor prevSlots, FloatView out) {
    String what = "attention residual weights";
    CheckedAttention.shape(e.rows(), heads, 1, what);
    AttentionEdges c = unwrap(e);
    CheckedAttention.edges(e, CpuBackend.edges(c));
    int slots = e.slots();
    CheckedTensors.range(prevSlots, 0, slots, what + " counterparts");
    int[] ps = CpuBackend.i(d(prevSlots));
    int prevSlotCount = 0;
    for (int q = 0; q < slots; q++) {
      if (ps[q] < -1) {
        throw new IllegalStateException(
            "checked backend: " + what + ": slot " + q + " has counterpart " + ps[q]);
      }
      prevSlotCount = Math.max(prevSlotCount, ps[q] + 1);
    }
    if (prev == null) {
      throw new IllegalStateException("checked backend: " + what + " earlier weights missing");
    }
    CheckedAttention.matrix(prev, prevSlotCount, heads, what + " earlier weights");
    CheckedAttention.matrix(out, slots, heads, what + " output");
    cpu.attentionResidualWeights(c, heads, d(prev), d(prevSlots), d(out));
  }

  private static void positive(int rows, int dim, float eps, String what) {
    if (rows < 0 || dim <= 0 || !(eps > 0f)) {
      throw new IllegalStateException(
          "checked backend: " + what + " with rows " + rows + ", dim " + dim + ", eps " + eps);
    }
  }

  @Override
  public void l2NormalizeRows(FloatView x, int rows, int dim, float eps, FloatView y) {
    positive(rows, dim, eps, "l2 normalisation");
    CheckedAttention.matrix(x.tensor(), x.offset(), rows, dim, "l2 normalisation input");
    CheckedAttention.matrix(y.tensor(), y.offset(), rows, dim, "l2 normalisation output");
    cpu.l2NormalizeRows(d(x), rows, dim, eps, d(y));
  }

  @Override
  public void l2NormalizeRowsBackward(
      FloatView x, FloatView y, int rows, int dim, float eps, FloatView dy, FloatView dx) {
    positive(rows, dim, eps, "l2 normalisation backward");
    CheckedAttention.matrix(x.tensor(), x.offset(), rows, dim, "l2 normalisation input");
    CheckedAttention.matrix(y.tensor(), y.offset(), rows, dim, "l2 normalisation output");
    CheckedAttention.matrix(
        dy.tensor(), dy.offset(), rows, dim, "l2 normalisation output gradient");
    CheckedAttention.matrix(dx.tensor(), dx.offset(), rows, dim, "l2 normalisation input gradient");
    cpu.l2NormalizeRowsBackward(d(x), d(y), rows, dim, eps, d(dy), d(dx));
  }

  private void checkMultiLabel(
      FloatTensor scores, int rows, int classes, FloatTensor targets, String what) {
    if (rows < 0 || classes <= 0) {
      throw new IllegalStateException(
          "checked backend: " + what + " with rows " + rows + ", classes " + classes);
    }
    CheckedAttention.matrix(scores, 0, rows, classes, what + " scores");
    CheckedAttention.matrix(targets, 0, rows, classes, what + " targets");
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
    checkMultiLabel(logits, rows, classes, targets, "sigmoid cross-entropy");
    CheckedAttention.matrix(probs, 0, rows, classes, "sigmoid cross-entropy probabilities");
    if (dLogits != null) {
      CheckedAttention.matrix(dLogits, 0, rows, classes, "sigmoid cross-entropy gradient");
    }
    double loss =
        cpu.sigmoidCrossEntropy(
            d(logits), rows, classes, d(targets), d(probs), dOrNull(dLogits), scale);
    downloadedBytes += Double.BYTES;
    return loss;
  }

  @Override
  public int countExactMatches(FloatTensor probs, int rows, int classes, FloatTensor targets) {
    checkMultiLabel(probs, rows, classes, targets, "exact-match count");
    int n = cpu.countExactMatches(d(probs), rows, classes, d(targets));
    downloadedBytes += Integer.BYTES;
    return n;
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
    double loss =
        cpu.softmaxCrossEntropy(
            d(logits),
            rows,
            classes,
            d(labels),
            d(probs),
            dLogits == null ? null : d(dLogits),
            scale);
    downloadedBytes += Double.BYTES;
    return loss;
  }

  @Override
  public int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels) {
    int n = cpu.countCorrect(d(scores), rows, classes, d(labels));
    downloadedBytes += Integer.BYTES;
    return n;
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
    cpu.adam(d(params), d(grads), d(m), d(v), n, lr, beta1, beta2, eps, weightDecay, step);
  }
}
