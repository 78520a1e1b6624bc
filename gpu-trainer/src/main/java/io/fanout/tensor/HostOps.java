package io.fanout.tensor;

/**
 * TEMPORARY (removed by the port to tensor handles): the former host-array operations.
 *
 * <p>The tensor operations the GNN models need, over row-major float matrices addressed as (array,
 * offset). A backend may keep device copies behind these calls; callers only ever see host arrays
 * at the points where they read results (loss, logits, parameters), which a device backend
 * synchronizes explicitly through {@link #sync()}.
 *
 * <p>All operations are deterministic: for the same inputs and the same thread count they produce
 * bit-identical outputs. Reductions (bias gradients, aggregation backward) run in a fixed order.
 */
public interface HostOps {
  /** A short name for logs, e.g. {@code cpu(JNIBLAS)}. */
  String name();

  /**
   * {@code C = alpha * op(A) * op(B) + beta * C}, row-major: {@code op(A)} is {@code m x k}, {@code
   * op(B)} is {@code k x n}, {@code C} is {@code m x n}. {@code A} is stored {@code m x k} (or
   * {@code k x m} when {@code transA}), {@code B} {@code k x n} (or {@code n x k} when {@code
   * transB}), both densely.
   */
  void gemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      float[] a,
      int aOff,
      float[] b,
      int bOff,
      float beta,
      float[] c,
      int cOff);

  /** Adds {@code bias[bOff .. bOff+cols)} to every row of {@code x[0 .. rows*cols)}. */
  void addBias(float[] x, int rows, int cols, float[] bias, int bOff);

  /** Accumulates the column sums of {@code dy[0 .. rows*cols)} into {@code grad[gOff ..)}. */
  void biasGrad(float[] dy, int rows, int cols, float[] grad, int gOff);

  /** Applies {@code act} in place to {@code x[0 .. n)}. */
  void activate(Activation act, float[] x, int n);

  /**
   * Multiplies {@code dy[0 .. n)} in place by the derivative of {@code act}, given its outputs
   * {@code y}.
   */
  void activateBackward(Activation act, float[] y, float[] dy, int n);

  /**
   * Inverted dropout in place: element {@code i} of {@code x[0 .. n)} is zeroed when {@code
   * CounterRng.uniform(key, i) < p}, otherwise scaled by {@code 1/(1-p)}. The backward pass is the
   * same call on the gradient with the same key.
   */
  void dropout(float[] x, int n, float p, long key);

  /**
   * Neighbor aggregation over a block: for each destination row {@code i < rows}, {@code out[i] =
   * w(i) * (selfWeight * src[i] + sum_{j in indices[indptr[i] .. indptr[i+1])} src[j])} with {@code
   * w(i) = 1/(deg + selfWeight)} for {@link Aggregation#MEAN} (1 when that is 0) and 1 for {@link
   * Aggregation#SUM}. {@code selfWeight} is 0 or 1 (GCN includes the node itself). {@code out} is
   * overwritten.
   */
  void aggregate(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] src,
      int cols,
      float[] out);

  /**
   * The backward of {@link #aggregate}: accumulates into {@code dSrc} the gradient flowing from
   * {@code dOut}. Sources are visited in a fixed order (by destination row, then edge position).
   */
  void aggregateBackward(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] dOut,
      int cols,
      float[] dSrc);

  /**
   * Softmax cross-entropy over {@code rows x classes} logits. Writes the row softmax into {@code
   * probs}, {@code (probs - onehot) * scale} into {@code dLogits} (may be null) and returns the
   * summed loss (not divided by rows). Rows whose label is negative contribute nothing.
   */
  double softmaxCrossEntropy(
      float[] logits,
      int rows,
      int classes,
      int[] labels,
      float[] probs,
      float[] dLogits,
      float scale);

  /**
   * One Adam step over {@code n} parameters with L2 weight decay added to the gradient ({@code g +
   * weightDecay * p}), bias-corrected with the 1-based {@code step}.
   */
  void adam(
      float[] params,
      float[] grads,
      float[] m,
      float[] v,
      int n,
      float lr,
      float beta1,
      float beta2,
      float eps,
      float weightDecay,
      long step);

  /**
   * Sparse times dense: {@code C = S * B + beta * C} where {@code S} is a CSR matrix of {@code
   * rows} rows ({@code ptr}, {@code col}, {@code val}) and {@code B} is row-major with {@code n}
   * columns starting at {@code bOff}. Used for sparse input features (bag-of-words datasets).
   */
  void spmm(
      int[] ptr,
      int[] col,
      float[] val,
      int rows,
      float[] b,
      int bOff,
      int n,
      float beta,
      float[] c);

  /**
   * Accumulates {@code S^T * dy} into {@code g} (row-major, {@code n} columns, from {@code gOff}),
   * where {@code S} has {@code rows} rows and {@code dy} is {@code rows x n}; rows are visited in
   * order, so the sums are deterministic.
   */
  void spmmTransposed(
      int[] ptr, int[] col, float[] val, int rows, float[] dy, int n, float[] g, int gOff);

  /** Waits for outstanding device work; a no-op on the CPU. */
  default void sync() {}

  /** The CPU implementation. */
  HostOps CPU =
      new HostOps() {
        @Override
        public String name() {
          return "cpu";
        }

        @Override
        public void gemm(
            boolean ta,
            boolean tb,
            int m,
            int n,
            int k,
            float alpha,
            float[] a,
            int aOff,
            float[] b,
            int bOff,
            float beta,
            float[] c,
            int cOff) {
          CpuKernels.gemm(ta, tb, m, n, k, alpha, a, aOff, b, bOff, beta, c, cOff);
        }

        @Override
        public void addBias(float[] x, int rows, int cols, float[] bias, int bOff) {
          CpuKernels.addBias(x, 0, rows, cols, bias, bOff);
        }

        @Override
        public void biasGrad(float[] dy, int rows, int cols, float[] grad, int gOff) {
          CpuKernels.biasGrad(dy, 0, rows, cols, grad, gOff);
        }

        @Override
        public void activate(Activation act, float[] x, int n) {
          CpuKernels.activate(act, x, 0, n);
        }

        @Override
        public void activateBackward(Activation act, float[] y, float[] dy, int n) {
          CpuKernels.activateBackward(act, y, 0, dy, 0, n);
        }

        @Override
        public void dropout(float[] x, int n, float p, long key) {
          CpuKernels.dropout(x, 0, n, p, key);
        }

        @Override
        public void aggregate(
            Aggregation mode,
            int[] indptr,
            int[] indices,
            int rows,
            int selfWeight,
            float[] src,
            int cols,
            float[] out) {
          CpuKernels.aggregate(mode, indptr, 0, indices, 0, rows, selfWeight, src, 0, cols, out, 0);
        }

        @Override
        public void aggregateBackward(
            Aggregation mode,
            int[] indptr,
            int[] indices,
            int rows,
            int selfWeight,
            float[] dOut,
            int cols,
            float[] dSrc) {
          CpuKernels.aggregateBackward(
              mode, indptr, 0, indices, 0, rows, selfWeight, dOut, 0, cols, dSrc, 0);
        }

        @Override
        public double softmaxCrossEntropy(
            float[] logits,
            int rows,
            int classes,
            int[] labels,
            float[] probs,
            float[] dLogits,
            float scale) {
          return CpuKernels.softmaxCrossEntropy(
              logits, rows, classes, labels, probs, dLogits, scale);
        }

        @Override
        public void adam(
            float[] params,
            float[] grads,
            float[] m,
            float[] v,
            int n,
            float lr,
            float beta1,
            float beta2,
            float eps,
            float weightDecay,
            long step) {
          CpuKernels.adam(params, grads, m, v, n, lr, beta1, beta2, eps, weightDecay, step);
        }

        @Override
        public void spmm(
            int[] ptr,
            int[] col,
            float[] val,
            int rows,
            float[] b,
            int bOff,
            int n,
            float beta,
            float[] c) {
          CpuKernels.spmm(ptr, col, val, rows, b, bOff, n, beta, c, 0);
        }

        @Override
        public void spmmTransposed(
            int[] ptr, int[] col, float[] val, int rows, float[] dy, int n, float[] g, int gOff) {
          CpuKernels.spmmTransposed(ptr, col, val, rows, dy, 0, n, g, gOff);
        }
      };
}
