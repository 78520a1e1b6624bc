package io.fanout.tensor;

import io.fanout.store.InvalidInputException;

/**
 * The tensor operations the GNN models need, over {@link Tensor tensors} the backend owns (host
 * arrays for the CPU, device memory for an accelerator). Host memory is touched only through {@link
 * #upload} and {@link #download}; every other operation reads and writes the backend's own tensors,
 * so a device backend runs a whole training step without copies across the bus.
 *
 * <p>Addressing: every operand is a tensor and an element offset into it; a matrix is row-major and
 * dense from that offset unless a stride is given. Ranges must lie inside the tensors.
 *
 * <p>Ordering: calls run in issue order. {@link #download} and the methods returning host values
 * ({@link #softmaxCrossEntropy}, {@link #countCorrect}) wait for the work before them; {@link
 * #upload} copies the host range before it returns, so the caller may reuse the array at once.
 *
 * <p>Determinism: for the same inputs (and the same thread count on the CPU) every operation
 * produces bit-identical outputs. Reductions (bias gradients, aggregation backward, loss) run in a
 * fixed order; nothing uses floating-point atomics.
 *
 * <p>A backend instance is used by one thread at a time.
 */
public interface Backend extends AutoCloseable {
  /** A short name for logs, e.g. {@code cpu(JNIBLAS)}. */
  String name();

  // ---- memory ----

  /** A new float tensor of {@code n >= 0} elements, all zero. */
  FloatTensor allocFloat(int n);

  /** A new int tensor of {@code n >= 0} elements, all zero. */
  IntTensor allocInt(int n);

  /** Releases {@code t}; a no-op when it was already freed. */
  void free(Tensor t);

  /** Copies {@code src[srcOff .. srcOff+n)} from the host into {@code dst[dstOff ..)}. */
  void upload(float[] src, int srcOff, FloatTensor dst, int dstOff, int n);

  /** Copies {@code src[srcOff .. srcOff+n)} from the host into {@code dst[dstOff ..)}. */
  void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n);

  /** Copies {@code src[srcOff .. srcOff+n)} to the host array {@code dst[dstOff ..)}. */
  void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n);

  /** Copies {@code src[srcOff .. srcOff+n)} to the host array {@code dst[dstOff ..)}. */
  void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n);

  /**
   * A host buffer of {@code n} floats for transfers with this backend: page-locked ({@code
   * cuMemHostAlloc}) on a GPU, the heap on the CPU. The caller closes it.
   */
  default HostFloats allocHostFloats(int n) {
    return new HeapHostFloats(n);
  }

  /** Copies {@code src[srcOff .. srcOff+n)} into the host buffer {@code dst[dstOff ..)}. */
  default void download(FloatTensor src, int srcOff, HostFloats dst, int dstOff, int n) {
    download(src, srcOff, heap(dst, dstOff, n), dstOff, n);
  }

  /** Copies the host buffer's {@code src[srcOff .. srcOff+n)} into {@code dst[dstOff ..)}. */
  default void upload(HostFloats src, int srcOff, FloatTensor dst, int dstOff, int n) {
    upload(heap(src, srcOff, n), srcOff, dst, dstOff, n);
  }

  /** The array of a heap buffer this backend allocated, checked to hold {@code [off, off+n)}. */
  private float[] heap(HostFloats h, int off, int n) {
    if (!(h instanceof HeapHostFloats hh)) {
      throw new IllegalArgumentException(
          "a host buffer of another backend was passed to " + name() + ": " + h);
    }
    if (off < 0 || n < 0 || (long) off + n > h.length()) {
      throw new IndexOutOfBoundsException(
          "range [" + off + ", " + ((long) off + n) + ") outside a host buffer of " + h.length());
    }
    return hh.array();
  }

  /**
   * The feature rows held in {@code files}, read by this backend in place ({@code --feature-access
   * zero-copy}, see {@link FeatureRows}): a device maps the files and decodes the rows in its
   * kernels; the CPU backends read them through {@code host}, the files' owner's gather.
   *
   * @throws UnsupportedOperationException when this backend cannot read rows in place
   */
  default FeatureRows mapFeatureRows(RowFiles files, HostRowGather host) {
    throw new UnsupportedOperationException(
        name() + " cannot read feature rows in place; use --feature-access gather");
  }

  /**
   * The feature rows held in {@code files}, copied once, still encoded, into this backend's own
   * memory and read there ({@code --feature-access device}): a device uploads the rows and decodes
   * them in its kernels. A backend that computes in host memory already holds them there: it reads
   * them in place, as {@link #mapFeatureRows}.
   *
   * @throws UnsupportedOperationException when this backend cannot read rows in place
   */
  default FeatureRows residentFeatureRows(RowFiles files, HostRowGather host) {
    return mapFeatureRows(files, host);
  }

  /**
   * Sets the arithmetic of this backend's dense products from now on ({@code --precision}). Every
   * backend computes {@link MatmulPrecision#FP32}; the CUDA backend with cuBLAS also takes the
   * tensor-core precisions.
   *
   * @throws InvalidInputException when this backend cannot compute {@code p}
   */
  default void matmulPrecision(MatmulPrecision p) {
    if (p != MatmulPrecision.FP32) {
      throw new InvalidInputException(
          "--precision "
              + p.id()
              + " needs the cuda backend with cuBLAS; "
              + name()
              + " computes dense products in fp32 (pass --precision fp32)");
    }
  }

  /**
   * Bytes of this backend's own device memory that are free, or -1 when it computes in host memory
   * (the CPU backends).
   */
  default long freeDeviceBytes() {
    return -1;
  }

  /**
   * Pages for a feature cache's rows that this backend reads in place ({@code --feature-access
   * zero-copy --feature-cache P}, see {@link PagedFeatureRows}), for rows encoded as {@code
   * encoding}: a device decodes them in its kernels, the CPU backends with {@code decoder}, the
   * rows' owner's decoder.
   *
   * @throws UnsupportedOperationException when this backend cannot read rows in place
   */
  default PagedFeatureRows pagedFeatureRows(RowEncoding encoding, HostRowDecoder decoder) {
    throw new UnsupportedOperationException(
        name() + " cannot read feature rows in place; use --feature-access gather");
  }

  // ---- small element-wise operations ----

  /** Sets {@code x[off .. off+n)} to zero. */
  void zero(FloatTensor x, int off, int n);

  /**
   * Copies {@code src[srcOff .. srcOff+n)} to {@code dst[dstOff ..)}; the ranges must not overlap.
   */
  void copy(FloatTensor src, int srcOff, FloatTensor dst, int dstOff, int n);

  /**
   * Copies a {@code rows x width} sub-matrix: row {@code r} of it is {@code src[srcOff + r *
   * srcStride .. + width)} and goes to {@code dst[dstOff + r * dstStride ..)}. Concatenates
   * matrices side by side (column ranges) and splits them again.
   */
  void copy2d(
      int rows,
      int width,
      FloatTensor src,
      int srcOff,
      int srcStride,
      FloatTensor dst,
      int dstOff,
      int dstStride);

  /** {@code y[yOff + i] += alpha * x[xOff + i]} for {@code i < n}. */
  void axpy(int n, float alpha, FloatTensor x, int xOff, FloatTensor y, int yOff);

  /** {@code x[off + i] *= alpha} for {@code i < n}. */
  void scale(int n, float alpha, FloatTensor x, int off);

  /**
   * Normalizes the {@code rows x dim} row-major matrix at {@code x[off ..)} in place, each row by
   * its L1 ({@code l1}) or L2 norm, bit for bit as {@link RowNorms#normalize} does on the host.
   */
  void normalizeRows(FloatTensor x, int off, int rows, int dim, boolean l1);

  // ---- dense algebra ----

  /**
   * {@code C = alpha * op(A) * op(B) + beta * C}, row-major: {@code op(A)} is {@code m x k}, {@code
   * op(B)} is {@code k x n}, {@code C} is {@code m x n}. {@code A} is stored {@code m x k} (or
   * {@code k x m} when {@code transA}), {@code B} {@code k x n} (or {@code n x k} when {@code
   * transB}), all densely from their offsets. With {@code beta == 0} the old contents of {@code C}
   * are ignored (even NaN).
   */
  void gemm(
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
      int cOff);

  /** Adds {@code bias[bOff .. bOff+cols)} to every row of the {@code rows x cols} matrix at x. */
  void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff);

  /**
   * Accumulates the column sums of the {@code rows x cols} matrix at {@code dy} into {@code
   * grad[gOff .. gOff+cols)}, summing rows in order.
   */
  void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff);

  /** Applies {@code act} in place to {@code x[off .. off+n)}. */
  void activate(Activation act, FloatTensor x, int off, int n);

  /**
   * Multiplies {@code dy[dyOff .. dyOff+n)} in place by the derivative of {@code act}, given its
   * outputs {@code y[yOff ..)}.
   */
  void activateBackward(Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n);

  /**
   * Inverted dropout in place: element {@code i < n} of {@code x[off ..)} is zeroed when {@code
   * CounterRng.uniform(key, i) < p}, otherwise scaled by {@code 1/(1-p)} (the mask position is
   * relative to {@code off}). The backward pass is the same call on the gradient with the same key.
   * A no-op when {@code p <= 0}.
   */
  void dropout(FloatTensor x, int off, int n, float p, long key);

  /**
   * {@link #dropout} that may also record its mask in {@code keep} (at least {@code (n + 31) / 32}
   * ints; may be null) for {@link #dropoutBackward}. Backends that keep no masks ignore {@code
   * keep}; the result is the same either way.
   */
  default void dropout(FloatTensor x, int off, int n, float p, long key, IntTensor keep) {
    dropout(x, off, n, p, key);
  }

  /**
   * {@code dst[dstOff ..) = } the {@link #dropout} of {@code src[srcOff .. srcOff+n)} under {@code
   * key}, leaving {@code src} as it is (the two ranges must not overlap); records the mask in
   * {@code keep} as {@link #dropout(FloatTensor, int, int, float, long, IntTensor)} does.
   */
  default void dropoutCopy(
      FloatTensor src,
      int srcOff,
      FloatTensor dst,
      int dstOff,
      int n,
      float p,
      long key,
      IntTensor keep) {
    copy(src, srcOff, dst, dstOff, n);
    dropout(dst, dstOff, n, p, key);
  }

  /**
   * The backward of a dropout with {@code p} and {@code key} that was given {@code keep}: applies
   * the same mask and scale to {@code g[off .. off+n)} (from {@code keep} where the backend
   * recorded it, else by hashing the positions again).
   */
  default void dropoutBackward(FloatTensor g, int off, int n, float p, long key, IntTensor keep) {
    dropout(g, off, n, p, key);
  }

  /**
   * Inverted dropout of the stored values of a CSR matrix of {@code rows} rows and {@code cols}
   * columns: the value at row {@code r}, column {@code c} is masked by {@code
   * CounterRng.uniform(key, r * cols + c)}, exactly as {@link #dropout} masks the dense matrix.
   */
  void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key);

  // ---- graph operations ----

  /**
   * Neighbor aggregation over a block in CSR form: the edges of destination row {@code i < rows}
   * are {@code indices[indicesOff + q]} for {@code q} in {@code [indptr[indptrOff + i],
   * indptr[indptrOff + i + 1])}, each a source row of the {@code cols}-wide matrix at {@code src}.
   * {@code out[i] = w(i) * (selfWeight * src[i] + sum_j src[j])} with {@code w(i) = 1/(deg +
   * selfWeight)} for {@link Aggregation#MEAN} (1 when that is 0) and 1 for {@link Aggregation#SUM}.
   * {@code selfWeight} is 0 or 1 (GCN includes the node itself). {@code out} is overwritten; each
   * output row sums its edges in edge order.
   */
  void aggregate(
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
      int outOff);

  /**
   * A hint that {@link #aggregateBackward} will follow with these structure arguments, before
   * either tensor is uploaded into again: a backend may start the work that depends on the
   * structure alone (the CUDA backend builds the transposed CSR on a host thread while the forward
   * runs). The results are the same with or without it; the default does nothing.
   */
  default void prepareAggregateBackward(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {}

  /**
   * The backward of {@link #aggregate}: accumulates into {@code dSrc} the gradient flowing from
   * {@code dOut}. Contributions to each source row are added in a fixed order (by destination row,
   * then edge position), so the result does not depend on scheduling.
   */
  void aggregateBackward(
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
      int dSrcOff);

  /**
   * Whether {@link #aggregateStrided} and {@link #aggregateBackwardStrided} take row strides other
   * than the width, so that a layer can aggregate straight into a column range of a wider matrix
   * (GraphSAGE's concatenation) instead of through a copy.
   */
  default boolean stridedAggregation() {
    return false;
  }

  /**
   * {@link #aggregate} with source rows {@code srcStride} and output rows {@code outStride}
   * elements apart (both at least {@code cols}); the other elements of {@code out}'s rows are left
   * as they are. Backends without {@link #stridedAggregation} accept only strides equal to {@code
   * cols}.
   */
  default void aggregateStrided(
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
    if (srcStride != cols || outStride != cols) {
      throw new UnsupportedOperationException(name() + " has no strided aggregation");
    }
    aggregate(
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

  /**
   * {@link #aggregateBackward} reading {@code dOut} rows {@code dOutStride} elements apart (at
   * least {@code cols}); {@code dSrc} is dense. Backends without {@link #stridedAggregation} accept
   * only {@code dOutStride == cols}.
   */
  default void aggregateBackwardStrided(
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
    if (dOutStride != cols) {
      throw new UnsupportedOperationException(name() + " has no strided aggregation");
    }
    aggregateBackward(
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

  /**
   * Sparse times dense: {@code C = S * B + beta * C} where {@code S} is a CSR matrix of {@code
   * rows} rows ({@code ptr}, {@code col}, {@code val}, from element 0) and {@code B} is row-major
   * with {@code n} columns from {@code bOff}; {@code C} is {@code rows x n} from {@code cOff}. Used
   * for sparse input features (bag-of-words datasets).
   */
  void spmm(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor b,
      int bOff,
      int n,
      float beta,
      FloatTensor c,
      int cOff);

  /**
   * Accumulates {@code S^T * dy} into {@code g} (row-major, {@code n} columns, from {@code gOff}),
   * where {@code S} has {@code rows} rows and {@code dy} is {@code rows x n} from {@code dyOff};
   * rows are visited in order, so the sums are deterministic.
   */
  void spmmTransposed(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor dy,
      int dyOff,
      int n,
      FloatTensor g,
      int gOff);

  // ---- attention ----

  /**
   * Per-head row dot products: {@code scores[r, k] = sum_d z[r, k * headDim + d] * a[k * headDim +
   * d]} for the {@code rows x (heads * headDim)} matrix at {@code z} and the {@code heads *
   * headDim} vector at {@code a}; {@code scores} is {@code rows x heads} and overwritten. Each sum
   * runs in column order. The attention scores of a GAT layer's sources and destinations.
   */
  void headScores(int rows, int heads, int headDim, FloatView z, FloatView a, FloatView scores);

  /**
   * The backward of {@link #headScores}: accumulates {@code dScores[r, k] * a[head k]} into {@code
   * dz} (when not null) and {@code sum_r dScores[r, k] * z[r, head k]} into {@code da} (when not
   * null), rows in order.
   */
  void headScoresBackward(
      int rows,
      int heads,
      int headDim,
      FloatView z,
      FloatView a,
      FloatView dScores,
      FloatView dz,
      FloatView da);

  /**
   * Edge attention (GAT, Simple-HGN) over the CSR block {@code e} with {@code h.heads()} heads of
   * {@code h.headDim()} columns. For each slot (edge) {@code q} of row {@code i} from source row
   * {@code j} of relation {@code r}, per head {@code k}: {@code e_q = LeakyReLU(sDst[i, k] +
   * sSrc[j, k] + sRel[r, k], slope)} (no relation term without relations), {@code alpha_q = } the
   * softmax of {@code e} over row {@code i}'s slots (the row maximum subtracted first, sums in slot
   * order), and {@code out[i, head k] = sum_q alpha_q,k z[j, head k]} in slot order, with the
   * scores and {@code z} of {@code in} ({@link AttentionInputs}). {@code alpha} receives the
   * weights ({@link AttentionEdges#slots()} x heads) for {@link #attentionAggregateBackward};
   * {@code out} ({@code rows x heads * headDim}) is overwritten, zero in rows without edges. With
   * attention dropout: the weight of slot {@code q}, head {@code k} is dropped from the sum when
   * {@code CounterRng.uniform(key, q * heads + k) < dropout}, otherwise multiplied by {@code 1 / (1
   * - dropout)} ({@code alpha} keeps the weights before dropout). No dropout when {@code dropout <=
   * 0}; the backward takes the same {@code h}.
   */
  default void attentionAggregate(
      AttentionEdges e, AttentionHeads h, AttentionInputs in, FloatView alpha, FloatView out) {
    attentionAggregate(e, h, in, null, alpha, out);
  }

  /**
   * {@link #attentionAggregate(AttentionEdges, AttentionHeads, AttentionInputs, FloatView,
   * FloatView)} with a residual (none when {@code res} is null): slot {@code q}, head {@code k}
   * aggregates with {@code (1 - beta) * m * alpha_q,k + beta * res.weights[q, k]}, {@code m} the
   * dropout factor (two float products and a sum, in that order). {@code alpha} keeps the softmax
   * weights; the backward takes the same {@code res}.
   */
  void attentionAggregate(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView out);

  /**
   * The backward of {@link #attentionAggregate} from {@code dOut} and the weights {@code alpha} it
   * saved (the other inputs as they were): accumulates the gradients of {@code in} into {@code
   * dIn}: of {@code z}, of the destination and source scores and (with relations) of the relation
   * scores. Each element receives its terms in a fixed order: per destination row in slot order
   * (destination scores); per source row in slot order over all rows, gathered on a device over the
   * transposed block ({@code z}, source scores); per relation in slot order within chunks of 256
   * rows, the chunks then in order (relation scores). No float atomics.
   */
  default void attentionAggregateBackward(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      FloatView alpha,
      FloatView dOut,
      AttentionInputs dIn) {
    attentionAggregateBackward(e, h, in, null, alpha, dOut, dIn);
  }

  /**
   * The backward of the attention with a residual {@code res} (none when null): the residual
   * weights are constants, so the softmax's gradient is scaled by {@code 1 - beta} (after the
   * dropout factor) and {@code z}'s gradient takes the weights the forward aggregated with.
   */
  void attentionAggregateBackward(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView dOut,
      AttentionInputs dIn);

  /**
   * The residual weights of an attention over block {@code e} from the weights {@code prev} of an
   * earlier one ({@code heads} per slot): {@code prevSlots} (from element 0, one per slot of {@code
   * e}) names each slot's counterpart among {@code prev}'s slots, or -1 when it has none. Per row
   * {@code i} and head {@code k}, with {@code S} the sum of {@code prev} over the row's slots that
   * have a counterpart (in slot order), slot {@code q} gets {@code prev[prevSlots[q], k] / S}, and
   * 0 without a counterpart or when {@code S} is not positive: the earlier weights restricted to
   * the edges both blocks share and normalised again, so a row's residual weights sum to 1.
   * Overwrites {@code out} ({@code slots x heads}).
   */
  void attentionResidualWeights(
      AttentionEdges e, int heads, FloatView prev, IntTensor prevSlots, FloatView out);

  /**
   * L2 row normalisation of the {@code rows x dim} matrix at {@code x} into {@code y} (a distinct
   * range): {@code y = x / max(||x||, eps)}, the squared norm summed in float in column order.
   */
  void l2NormalizeRows(FloatView x, int rows, int dim, float eps, FloatView y);

  /**
   * The backward of {@link #l2NormalizeRows} given its input {@code x} and output {@code y}:
   * accumulates into {@code dx} {@code (dy - y (y . dy)) / ||x||} where {@code ||x|| > eps}, else
   * {@code dy / eps}.
   */
  void l2NormalizeRowsBackward(
      FloatView x, FloatView y, int rows, int dim, float eps, FloatView dy, FloatView dx);

  // ---- loss, metrics, optimizer ----

  /**
   * Softmax cross-entropy over {@code rows x classes} logits (from element 0 of each tensor).
   * Writes the row softmax into {@code probs}, {@code (probs - onehot) * scale} into {@code
   * dLogits} (may be null) and returns the summed loss (not divided by rows; summed over rows in
   * order, in double). Rows whose label is negative contribute nothing and get a zero gradient. The
   * returned value is a host read-back (8 bytes).
   */
  double softmaxCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale);

  /**
   * The number of rows {@code r < rows} with {@code labels[r] >= 0} whose first maximal column of
   * {@code scores} equals the label; a host read-back (4 bytes).
   */
  int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels);

  /**
   * {@link #softmaxCrossEntropy} and then {@link #countCorrect} of the {@code probs} it writes,
   * without waiting for either: the returned readback waits when first read. The default computes
   * both at once; a device queues them and copies the two values back asynchronously, so a training
   * step can queue the next batch before it reads this one's loss.
   */
  default LossReadback softmaxCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    double loss = softmaxCrossEntropy(logits, rows, classes, labels, probs, dLogits, scale);
    return LossReadback.of(loss, countCorrect(probs, rows, classes, labels));
  }

  /**
   * Sigmoid binary cross-entropy for multi-label targets over {@code rows x classes} logits (from
   * element 0 of each tensor): writes {@code sigmoid(logits)} into {@code probs}, {@code (probs -
   * targets) * scale} into {@code dLogits} (may be null) and returns the summed loss {@code max(x,
   * 0) - x t + log(1 + exp(-|x|))} over the known elements (in double; a host read-back of 8
   * bytes). {@code targets} holds 0 or 1 per element, or a negative value for an unknown element
   * (an unlabelled row has all its targets negative), which contributes no loss and gets a zero
   * gradient.
   */
  double sigmoidCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale);

  /**
   * The number of rows {@code r < rows} with a known target whose known targets all equal the
   * thresholded {@code probs} ({@code >= 0.5} for 1): multi-label exact matches; a host read-back.
   */
  int countExactMatches(FloatTensor probs, int rows, int classes, FloatTensor targets);

  /**
   * {@link #sigmoidCrossEntropy} and then {@link #countExactMatches} of the {@code probs} it
   * writes, without waiting for either, as {@link #softmaxCrossEntropyDeferred} does for one label
   * a row.
   */
  default LossReadback sigmoidCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    double loss = sigmoidCrossEntropy(logits, rows, classes, targets, probs, dLogits, scale);
    return LossReadback.of(loss, countExactMatches(probs, rows, classes, targets));
  }

  /**
   * One Adam step over {@code n} parameters (all tensors from element 0) with L2 weight decay added
   * to the gradient ({@code g + weightDecay * p}), bias-corrected with the 1-based {@code step}.
   */
  void adam(
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
      long step);

  /** Waits for outstanding device work; a no-op on the CPU. */
  default void sync() {}

  /**
   * Releases what the backend holds (a device context, streams, memory pools); tensors must be
   * freed first. A no-op on the CPU; the {@link CheckingBackend checking mode} fails here when
   * tensors or host buffers are still allocated. Idempotent.
   */
  @Override
  default void close() {}
}
